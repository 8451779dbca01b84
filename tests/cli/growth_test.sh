#!/usr/bin/env bash
# Inputs whose cost grew faster than their size (issue 15, "Hostile input"):
# each case generates its input, runs `charter` under a generous time cap
# and, unless the build is sanitized, an address-space cap, and checks the
# result. Before the fixes each case needed gigabytes or minutes; a case
# that exceeds a cap fails (the command is killed or reports out of memory).
#
#   tests/cli/growth_test.sh CHARTER_BINARY CASE MEMORY_CAP_KB   # 0: no memory cap
#   tests/cli/growth_test.sh CHARTER_BINARY --list
set -uo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 CHARTER_BINARY CASE|--list [MEMORY_CAP_KB]" >&2
  exit 2
fi
charter="$1"
case_name="$2"
cap_kb="${3:-0}"
time_cap=60

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# run EXPECTED_STATUS ARGS...: runs charter under the caps into $tmp/out
# and $tmp/err; fails unless it exits with EXPECTED_STATUS.
run() {
  local want="$1"
  shift
  (
    if [[ "$cap_kb" != 0 ]]; then ulimit -v "$cap_kb"; fi
    exec timeout "$time_cap" "$charter" "$@"
  ) >"$tmp/out" 2>"$tmp/err"
  local status=$?
  if [[ $status -ne $want ]]; then
    echo "FAIL: charter $* exited $status, expected $want (124: over ${time_cap}s)" >&2
    head -c 2000 "$tmp/out" "$tmp/err" >&2
    exit 1
  fi
}

# measured EXPECTED_STATUS ARGS...: `run`, and appends the command's peak
# resident memory in KB to $peaks (GNU time, which make deps installs).
peaks=()
measured() {
  local want="$1"
  shift
  if [[ ! -x /usr/bin/time ]]; then
    # make deps installs GNU time (Debian's `time`): without it the linear
    # bound could not be checked, and a test that cannot fail is no test.
    echo "FAIL: /usr/bin/time (GNU time) is missing: run make deps" >&2
    exit 1
  fi
  (
    if [[ "$cap_kb" != 0 ]]; then ulimit -v "$cap_kb"; fi
    exec /usr/bin/time -f %M -o "$tmp/peak" timeout "$time_cap" "$charter" "$@"
  ) >"$tmp/out" 2>"$tmp/err"
  local status=$?
  if [[ $status -ne $want ]]; then
    echo "FAIL: charter $* exited $status, expected $want (124: over ${time_cap}s)" >&2
    head -c 2000 "$tmp/out" "$tmp/err" >&2
    exit 1
  fi
  peaks+=("$(tail -n 1 "$tmp/peak")")
}

# linear_peaks: the three $peaks, measured at sizes n, 2n and 4n, grow at
# most linearly: from n to 4n by no more than four times what they grew
# from n to 2n (three times for a straight line, five for a parabola), give
# or take 16 MB of noise. Skipped (with a note) without GNU time.
linear_peaks() {
  local a="${peaks[0]}" b="${peaks[1]}" c="${peaks[2]}"
  peaks=()
  local first=$((b - a))
  if ((first < 0)); then first=0; fi
  if ((c - a > 4 * first + 16384)); then
    echo "FAIL: peak memory grew faster than the input: ${a} KB, ${b} KB, ${c} KB at sizes n, 2n, 4n" >&2
    exit 1
  fi
}

expect() {  # expect FILE PATTERN
  if ! grep -q -- "$2" "$1"; then
    echo "FAIL: $(basename "$1") lacks: $2" >&2
    head -c 2000 "$1" >&2
    exit 1
  fi
}

# A set literal over 60,000 context attributes, decided from a bundle and
# from the policy text (each value twice: a0 and a30000 are 0): each SetExtend of the literal copied the whole set
# (12 s and 1.6 GB a decision).
case_context_set_literal() {
  # 60,000 elements: four tokens each stay under the 262,144 tokens a policy may hold (CH0005).
  local n=60000
  # The cap this case needs, with margin: the fixed code passes under 250 MB
  # of address space, not under 200 MB (parsing the literal; 208 MB
  # resident at most), and the copying SetExtend needed about 0.9 GB for a
  # decision over these 60,000 (1.59 GB over 80,000): 400 MB tells them
  # apart, where the default 1 GB might not.
  if [[ "$cap_kb" != 0 ]]; then cap_kb=400000; fi
  awk -v n=$n 'BEGIN {
    printf "permit(principal, action, resource) when { [";
    for (i = 0; i < n; i++) printf "%scontext.a%d", (i ? ", " : ""), i;
    printf "].contains(%d) };\n", n / 2 - 1 }' >"$tmp/p.cedar"
  awk -v n=$n 'BEGIN {
    printf "{\"principal\": \"User::\\\"a\\\"\", \"action\": \"Action::\\\"v\\\"\", \"resource\": \"User::\\\"b\\\"\", \"context\": {";
    for (i = 0; i < n; i++) printf "%s\"a%d\": %d", (i ? ", " : ""), i, i % (n / 2);
    printf "}}\n" }' >"$tmp/req.json"
  echo '[]' >"$tmp/e.json"
  run 0 build --policies "$tmp/p.cedar" -o "$tmp/p.chb"
  run 0 authorize --bundle "$tmp/p.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
  run 0 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
  # The same literal without the element it looks for.
  sed -i "s/contains($((n / 2 - 1)))/contains(-1)/" "$tmp/p.cedar"
  run 0 build --policies "$tmp/p.cedar" -o "$tmp/p.chb"
  run 2 authorize --bundle "$tmp/p.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" DENY
  # A literal of 4,001 attributes (a0, a30000, a1, a30001, ..., a0) equal to
  # the set of its 2,000 distinct values, which it is only if each value is
  # kept once; and nested, two such literals in a literal.
  awk -v n=$n 'function lit(  i) {
      printf "[";
      for (i = 0; i < 2000; i++) printf "context.a%d, context.a%d, ", i, i + n / 2;
      printf "context.a0]" }
    BEGIN {
      printf "permit(principal, action, resource) when { ";
      lit();
      printf " == [";
      for (i = 0; i < 2000; i++) printf "%s%d", (i ? ", " : ""), i;
      printf "] && [";
      lit();
      printf ", [-1], ";
      lit();
      printf "].contains([-1]) };\n" }' >"$tmp/eq.cedar"
  run 0 build --policies "$tmp/eq.cedar" -o "$tmp/eq.chb"
  run 0 authorize --bundle "$tmp/eq.chb" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
  run 0 authorize --policies "$tmp/eq.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
}

# A schema whose 32,000 actions form a chain (`action a0 in [a1] ...`), then
# one of 32,000 entity types: the closures were kept as sets of names (a
# chain of 8,000 actions: 91 s and 7 GB); now as intervals, one a member.
case_schema_chains() {
  local n=32000
  awk -v n=$n 'BEGIN {
    print "entity User;";
    for (i = 0; i < n; i++) printf "action a%d in [a%d] appliesTo { principal: User, resource: User };\n", i, i + 1;
    printf "action a%d appliesTo { principal: User, resource: User };\n", n }' >"$tmp/actions.cedarschema"
  echo "permit(principal, action in Action::\"a$n\", resource) when { action in Action::\"a1\" };" >"$tmp/p.cedar"
  run 0 check --schema "$tmp/actions.cedarschema" --policies "$tmp/p.cedar"
  expect "$tmp/out" "ok"
  printf '%s\n' '{"principal": "User::\"a\"", "action": "Action::\"a0\"", "resource": "User::\"b\"", "context": {}}' >"$tmp/req0.json"
  printf '%s\n' '{"principal": "User::\"a\"", "action": "Action::\"a2\"", "resource": "User::\"b\"", "context": {}}' >"$tmp/req2.json"
  echo '[]' >"$tmp/e.json"
  run 0 authorize --schema "$tmp/actions.cedarschema" --policies "$tmp/p.cedar" --entities "$tmp/e.json" \
    --request-json "$tmp/req0.json"
  expect "$tmp/out" ALLOW
  run 2 authorize --schema "$tmp/actions.cedarschema" --policies "$tmp/p.cedar" --entities "$tmp/e.json" \
    --request-json "$tmp/req2.json"
  expect "$tmp/out" DENY
  awk -v n=$n 'BEGIN {
    print "entity User;";
    for (i = 0; i < n; i++) printf "entity E%d in [E%d];\n", i, i + 1;
    printf "entity E%d;\n", n;
    print "action view appliesTo { principal: E0, resource: User };" }' >"$tmp/types.cedarschema"
  # E0 is below E32000 (and the policy may hold), not below User (it may not).
  echo "permit(principal, action, resource) when { principal in E$n::\"top\" };" >"$tmp/q.cedar"
  run 0 check --schema "$tmp/types.cedarschema" --policies "$tmp/q.cedar"
  expect "$tmp/out" "ok"
  if grep -q CH0531 "$tmp/out" "$tmp/err"; then
    echo "FAIL: E0 in E$n was found impossible" >&2
    exit 1
  fi
  echo "permit(principal, action, resource) when { principal in User::\"u\" };" >"$tmp/q.cedar"
  run 0 check --schema "$tmp/types.cedarschema" --policies "$tmp/q.cedar"
  if ! grep -q CH0531 "$tmp/out" "$tmp/err"; then
    echo "FAIL: E0 in User was not found impossible" >&2
    exit 1
  fi
}

# Entity types each in two or three of the earlier ones at random: the
# closure would need millions of intervals, and the schema is refused early
# with CH0412 at the type reached.
case_schema_tangled() {
  awk 'BEGIN {
    srand(1);
    print "entity T0;";
    for (i = 1; i < 60000; i++) {
      k = 2 + int(rand() * 2);
      printf "entity T%d in [", i;
      for (j = 0; j < k; j++) printf "%sT%d", (j ? ", " : ""), int(rand() * i);
      print "];" } }' >"$tmp/dag.cedarschema"
  echo "permit(principal, action, resource);" >"$tmp/p.cedar"
  run 1 check --schema "$tmp/dag.cedarschema" --policies "$tmp/p.cedar"
  expect "$tmp/err" "error\[CH0412\]: the entity type hierarchy is too tangled: its closure needs more than 4194304 intervals (reached at \`T"
}

# Entities each with two or three earlier parents at random: the ancestor
# index needed gigabytes and minutes, then was refused at its limit; it is
# now bounded by the input, and `in` on the entities it has no room for walks
# up. U::"299999" is under U::"0" (every entity's parents come before it, so
# every path up ends at U::"0"); U::"1" is under U::"0" only.
case_entity_graph_tangled() {
  # Reading 42 MB of entity JSON takes most of a gigabyte of address space
  # (419 MB resident at the end); the index itself needed 2.4 GB before its
  # limit stopped it.
  if [[ "$cap_kb" != 0 ]]; then cap_kb=2000000; fi
  awk 'BEGIN {
    srand(7);
    printf "[{\"uid\": {\"type\": \"U\", \"id\": \"0\"}, \"attrs\": {}, \"parents\": []}";
    for (i = 1; i < 300000; i++) {
      k = 2 + int(rand() * 2);
      printf ",\n{\"uid\": {\"type\": \"U\", \"id\": \"%d\"}, \"attrs\": {}, \"parents\": [", i;
      for (j = 0; j < k; j++) printf "%s{\"type\": \"U\", \"id\": \"%d\"}", (j ? ", " : ""), int(rand() * i);
      printf "]}" }
    print "]" }' >"$tmp/e.json"
  echo "permit(principal in U::\"0\", action, resource) unless { U::\"0\" in U::\"1\" || U::\"1\" in U::\"2\" };" >"$tmp/p.cedar"
  printf '%s\n' '{"principal": "U::\"299999\"", "action": "Action::\"v\"", "resource": "U::\"2\"", "context": {}}' >"$tmp/req.json"
  run 0 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
}

# A comb: a chain of n entities (c0 above c1 above ...), and n more each in
# a group and under a random node of the chain, at n = 4,000, 8,000 and
# 16,000 (up to 3.5 MB): each node of the chain needed an interval for
# nearly every entity under it, quadratic (8,000: 155 MB; a 916 KB file:
# 276 MB). The index is now bounded by its input, and `in` on a node it has
# no room for walks up from the entity; the answers are the same.
case_entity_comb() {
  local n
  for n in 4000 8000 16000; do
    awk -v n=$n -v out="$tmp/expect" 'BEGIN {
      srand(3);
      printf "[{\"uid\": {\"type\": \"G\", \"id\": \"x\"}, \"attrs\": {}, \"parents\": []}";
      for (i = 0; i < n; i++) {
        p[i] = int(rand() * n);
        printf ",\n{\"uid\": {\"type\": \"U\", \"id\": \"e%d\"}, \"attrs\": {}, \"parents\": [{\"type\": \"G\", \"id\": \"x\"}, {\"type\": \"C\", \"id\": \"c%d\"}]}", i, p[i];
      }
      for (i = 0; i < n; i++) printf ",\n{\"uid\": {\"type\": \"C\", \"id\": \"c%d\"}, \"attrs\": {}, \"parents\": [%s]}", i, (i ? sprintf("{\"type\": \"C\", \"id\": \"c%d\"}", i - 1) : "");
      print "]";
      # e7 is under c(j) for every j up to p[7], and under no other.
      printf "%d\n", p[7] > out }' >"$tmp/e.json"
    printf '%s\n' '{"principal": "U::\"e7\"", "action": "Action::\"v\"", "resource": "U::\"e2\"", "context": {}}' >"$tmp/req.json"
    local under
    under="$(cat "$tmp/expect")"
    echo "permit(principal in C::\"c$under\", action, resource) when { principal in C::\"c0\" && principal in G::\"x\" };" >"$tmp/p.cedar"
    measured 0 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
    expect "$tmp/out" ALLOW
  done
  linear_peaks
  echo "permit(principal in C::\"c$((under + 1))\", action, resource);" >"$tmp/p.cedar"
  run 2 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" DENY
  echo "permit(principal, action, resource) when { C::\"c$((n - 1))\" in C::\"c0\" && !(C::\"c0\" in C::\"c1\") };" >"$tmp/p.cedar"
  run 0 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
}

# One `&&` chain of 120,000 terms on one line (1.5 MB), listed with its
# source by `disasm --policies` and reported term by term by `test
# --coverage`: each position was counted from the line's start (a chain of
# 40,000 terms: 25 to 33 s; this one about 5 minutes), now from per-block
# counts. Two tokens a term keep the policy under the 262,144 tokens a
# policy may hold (CH0005).
case_long_line_positions() {
  local n=120000
  awk -v n=$n 'BEGIN {
    printf "permit(principal, action, resource) when { principal";
    for (i = 1; i < n; i++) printf " && principal";
    printf " };\n" }' >"$tmp/chain.cedar"
  run 0 disasm --policies "$tmp/chain.cedar"
  expect "$tmp/out" "^    ; 1 | permit(principal, action, resource) when { principal && principal"
  expect "$tmp/out" "JumpIfFalse"
  # `principal` is no boolean: the policy errs at its first term, and the
  # other terms were never evaluated, each at its column.
  printf '%s\n' '{"policies": "chain.cedar", "cases": [{"name": "chain",' \
    '"request": {"principal": "User::\"a\"", "action": "Action::\"v\"", "resource": "User::\"b\"", "context": {}},' \
    '"decision": "deny", "errors": ["policy0"]}]}' >"$tmp/chain.test.json"
  run 0 test --coverage "$tmp/chain.test.json"
  expect "$tmp/out" "^PASS chain"
  expect "$tmp/out" "0 of $((n + 1)) conditions seen both true and false"
  expect "$tmp/out" "chain.cedar:1:44: policy0: \`principal\` always failed to evaluate"
  expect "$tmp/out" "chain.cedar:1:$((44 + 13 * (n - 1))): policy0: \`principal\` was never evaluated"
}

# An entity attribute and a request's context attribute each holding a set
# of 500,000 distinct integers (3.4 MB of JSON each): the JSON reader built
# sets pairwise (160,000 integers: 27 s), and containsAll, containsAny and
# the equality of sets compared every element with every other (these
# 500,000: over 4 minutes); now both through hash tables.
case_json_sets() {
  local n=500000
  awk -v n=$n 'BEGIN {
    printf "[{\"uid\": {\"type\": \"User\", \"id\": \"a\"}, \"attrs\": {\"s\": [";
    for (i = 0; i < n; i++) printf "%s%d", (i ? "," : ""), i;
    printf "]}, \"parents\": []}]\n" }' >"$tmp/e.json"
  # The context's set: 1 to n, in descending order.
  awk -v n=$n 'BEGIN {
    printf "{\"principal\": \"User::\\\"a\\\"\", \"action\": \"Action::\\\"v\\\"\", \"resource\": \"User::\\\"b\\\"\", \"context\": {\"s\": [";
    for (i = 0; i < n; i++) printf "%s%d", (i ? "," : ""), n - i;
    printf "]}}\n" }' >"$tmp/req.json"
  echo "permit(principal, action, resource) when { principal.s.contains($((n - 1))) && context.s.contains($n) };" >"$tmp/p.cedar"
  run 0 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
  echo "permit(principal, action, resource) when { principal.s.contains($n) || context.s.contains(0) };" >"$tmp/p.cedar"
  run 2 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" DENY
  # n - 1 of the context's elements are the entity's (n is not): containsAll
  # fails, containsAny holds, and the sets are not equal; the entity's set
  # contains all of itself and equals itself (each pairwise: n^2 / 2
  # comparisons).
  echo "permit(principal, action, resource) when { !principal.s.containsAll(context.s) && principal.s.containsAny(context.s) && principal.s != context.s && principal.s.containsAll(principal.s) && principal.s == principal.s };" >"$tmp/p.cedar"
  run 0 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" ALLOW
  # The same through the reference interpreter (explain), which shares the
  # set methods and equality.
  run 0 explain --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" "^ALLOW: permitted by \`policy0\`"
}

# A schema whose common types form a chain (`type T0 = T1; type T1 = T2;
# ...`), at 3,500, 7,000 and 14,000 types, in the text and the JSON format:
# resolving each name recursed into the next (14,000: a crash by stack
# overflow in check, build, serve and Python's charter.Schema()); a cycle
# as long; and a chain of sets (`type T0 = Set<T1>; ...`), whose type
# nests deeper than SchemaOptions::max_nesting once inlined (CH0412).
case_schema_common_chain() {
  echo "permit(principal, action, resource) when { context.a == 1 };" >"$tmp/p.cedar"
  local n
  for n in 3500 7000 14000; do
    awk -v n=$n 'BEGIN {
      print "entity User;";
      for (i = 0; i < n; i++) printf "type T%d = T%d;\n", i, i + 1;
      printf "type T%d = Long;\n", n;
      print "action view appliesTo { principal: User, resource: User, context: { a: T0 } };" }' >"$tmp/chain.cedarschema"
    measured 0 check --schema "$tmp/chain.cedarschema" --policies "$tmp/p.cedar"
    expect "$tmp/out" "ok"
  done
  linear_peaks
  awk -v n=14000 'BEGIN {
    printf "{\"\": {\"entityTypes\": {\"User\": {}}, \"commonTypes\": {";
    for (i = 0; i < n; i++) printf "\"T%d\": {\"type\": \"T%d\"}, ", i, i + 1;
    printf "\"T%d\": {\"type\": \"Long\"}}, \"actions\": {\"view\": {\"appliesTo\": {\"principalTypes\": [\"User\"], \"resourceTypes\": [\"User\"], \"context\": {\"type\": \"Record\", \"attributes\": {\"a\": {\"type\": \"T0\"}}}}}}}}\n", n }' >"$tmp/chain.cedarschema.json"
  run 0 check --schema "$tmp/chain.cedarschema.json" --policies "$tmp/p.cedar"
  expect "$tmp/out" "ok"
  awk -v n=14000 'BEGIN {
    print "entity User;";
    for (i = 0; i < n; i++) printf "type T%d = T%d;\n", i, (i + 1) % n;
    print "action view appliesTo { principal: User, resource: User, context: { a: T0 } };" }' >"$tmp/cycle.cedarschema"
  run 1 check --schema "$tmp/cycle.cedarschema" --policies "$tmp/p.cedar"
  expect "$tmp/err" "cycle.cedarschema:2:6: error\[CH0407\]: common type \`T0\` refers to itself"
  awk -v n=14000 'BEGIN {
    print "entity User;";
    for (i = 0; i < n; i++) printf "type T%d = Set<T%d>;\n", i, i + 1;
    printf "type T%d = Long;\n", n;
    print "action view appliesTo { principal: User, resource: User, context: { a: T0 } };" }' >"$tmp/sets.cedarschema"
  run 1 check --schema "$tmp/sets.cedarschema" --policies "$tmp/p.cedar"
  # T13935 = Set<T13936> is the 65th level above T14000 = Long.
  expect "$tmp/err" "sets.cedarschema:13937:15: error\[CH0412\]: type nested deeper than 64 levels once its common types are inlined"
  if [[ "$(grep -c 'error\[' "$tmp/err")" != 1 ]]; then
    echo "FAIL: the nesting was reported more than once" >&2
    head -c 2000 "$tmp/err" >&2
    exit 1
  fi
}

# Template links, 15,000, 30,000 and 60,000 of them (up to 6 MB): each
# link's line and column were counted from the start of the file (10,000
# links: 7.8 s; 30,000: 72 s); now from the link before.
case_template_link_positions() {
  echo 'permit(principal == ?principal, action, resource);' >"$tmp/t.cedar"
  local n
  for n in 15000 30000 60000; do
    awk -v n=$n 'BEGIN {
      printf "[\n";
      for (i = 0; i < n; i++) printf "%s{\"template_id\": \"policy0\", \"link_id\": \"l%d\", \"args\": {\"?principal\": {\"type\": \"User\", \"id\": \"u%d\"}}}\n", (i ? "," : ""), i, i;
      print "]" }' >"$tmp/links.json"
    measured 0 check --policies "$tmp/t.cedar" --template-linked "$tmp/links.json"
    expect "$tmp/out" "ok"
  done
  linear_peaks
  # The last link's position, counted on: line n + 1, column 2 (after the
  # comma), here where its id is taken already.
  sed -i '$d' "$tmp/links.json"
  sed -i '$s/"link_id": "l[0-9]*"/"link_id": "l0"/' "$tmp/links.json"
  echo "]" >>"$tmp/links.json"
  run 1 check --policies "$tmp/t.cedar" --template-linked "$tmp/links.json"
  expect "$tmp/err" "links.json:60001:2: link \`l0\`: the policy id \`l0\` is already taken"
}

# Kueue's YAML: one map of 25,000, 50,000 and 100,000 labels (up to 2.2 MB),
# whose duplicate keys were found by a scan per key (1.7 MB: 18 s); a chain
# of 5,000, 10,000 and 20,000 cohorts, which the cycle check walked to the
# root from every cohort (20,833: 53 s); and a long cycle of cohorts.
case_kueue_import_growth() {
  local n
  for n in 25000 50000 100000; do
    awk -v n=$n 'BEGIN {
      printf "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: f\n  labels:\n";
      for (i = 0; i < n; i++) printf "    key%d: v%d\n", i, i;
      printf "spec: {}\n" }' >"$tmp/labels.yaml"
    measured 0 import kueue "$tmp/labels.yaml"
    expect "$tmp/out" '^flavor f;$'
  done
  linear_peaks
  printf '    key7: again\n' >"$tmp/dup"
  sed -i "/^    key99999: /r $tmp/dup" "$tmp/labels.yaml"
  run 1 import kueue "$tmp/labels.yaml"
  expect "$tmp/err" "duplicate key \`key7\`"
  for n in 5000 10000 20000; do
    awk -v n=$n 'BEGIN {
      for (i = 0; i < n; i++) {
        printf "---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: c%d\n", i;
        if (i > 0) printf "spec:\n  parentName: c%d\n", i - 1 } }' >"$tmp/cohorts.yaml"
    measured 0 import kueue "$tmp/cohorts.yaml"
    expect "$tmp/out" "^cohort c$((n - 1)) {\$"
    expect "$tmp/out" "^  parent: c$((n - 2));\$"
  done
  linear_peaks
  # The root's parent is the last cohort: every one is on a cycle, and a
  # cohort hanging below it is under one.
  printf -- '---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: c0\nspec:\n  parentName: c19999\n' >"$tmp/root"
  awk 'NR == 1, /^  name: c0$/ { next } { print }' "$tmp/cohorts.yaml" >"$tmp/cycle.yaml"
  cat "$tmp/root" >>"$tmp/cycle.yaml"
  printf -- '---\napiVersion: kueue.x-k8s.io/v1beta2\nkind: Cohort\nmetadata:\n  name: below\nspec:\n  parentName: c5\n' >>"$tmp/cycle.yaml"
  run 0 import kueue "$tmp/cycle.yaml"
  expect "$tmp/err" "cohort \`c19999\` is in or under a cycle of parents"
  expect "$tmp/err" "cohort \`below\` is in or under a cycle of parents"
  if grep -q '^cohort c' "$tmp/out"; then
    echo "FAIL: a cohort on the cycle was kept" >&2
    exit 1
  fi
}

# `like` against a context string of 250,000, 500,000 and 1,000,000 `a`s
# with a pattern `*aaa...ab*` of 100,000 characters: the match was
# O(text x pattern) (a 1 MB string: 5.8 s a decision, explain over 60 s;
# here, with 5,000 characters, 4.2 s of CPU);
# now each literal between stars is found by a linear search. Explain runs
# the reference interpreter, which shares the matcher (common/like.h).
case_like_long_pattern() {
  local m=100000 n
  awk -v m=$m 'BEGIN {
    printf "permit(principal, action, resource) when { context.s like \"*";
    for (i = 0; i < m; i++) printf "a";
    printf "b*\" || context.s like \"a*";
    for (i = 0; i < m; i++) printf "a";
    print "\" };" }' >"$tmp/p.cedar"
  echo '[]' >"$tmp/e.json"
  for n in 250000 500000 1000000; do
    awk -v n=$n 'BEGIN {
      printf "{\"principal\": \"User::\\\"a\\\"\", \"action\": \"Action::\\\"v\\\"\", \"resource\": \"User::\\\"b\\\"\", \"context\": {\"s\": \"";
      for (i = 0; i < n; i++) printf "a";
      print "\"}}" }' >"$tmp/req.json"
    measured 0 explain --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
    expect "$tmp/out" "^ALLOW: permitted by \`policy0\`"
    # The VM (authorize) matches with the same linear matcher.
    run 0 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
    expect "$tmp/out" "^ALLOW"
  done
  linear_peaks
  # Neither holds once the string ends in `c`.
  sed -i 's/a"}}$/c"}}/' "$tmp/req.json"
  run 2 explain --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" "^DENY"
  run 2 authorize --policies "$tmp/p.cedar" --entities "$tmp/e.json" --request-json "$tmp/req.json"
  expect "$tmp/out" "^DENY"
}

# A .charter file of 10,000, 20,000 and 40,000 queues (one to four times the
# 262,144 tokens a policy may hold): consecutive declaration blocks counted
# as one policy (CH0005, "policy has more than ... tokens" at about 6,500
# realistic queues); each declaration now counts alone, and one too long is
# called a declaration.
case_charter_declarations() {
  local n
  for n in 10000 20000 40000; do
    awk -v n=$n 'BEGIN {
      print "flavor \"default\";\ncohort \"org\";";
      for (i = 0; i < n; i++) printf "queue \"team-%d\" {\n  cohort: \"org\";\n  resources cpu, memory {\n    flavor \"default\" { cpu: 8 borrow 2; memory: 64Gi; }\n  }\n}\n", i }' >"$tmp/q.charter"
    measured 0 check --policies "$tmp/q.charter"
    expect "$tmp/out" "q.charter: ok"
  done
  linear_peaks
  awk 'BEGIN {
    printf "flavor \"default\";\nqueue \"big\" {\n  resources cpu {\n";
    for (i = 0; i < 70000; i++) printf "    flavor \"f%d\" { cpu: 1; }\n", i;
    print "  }\n}" }' >"$tmp/big.charter"
  run 1 check --policies "$tmp/big.charter"
  expect "$tmp/err" "error\[CH0005\]: declaration has more than 262144 tokens"
  expect "$tmp/err" "help: split it into several declarations, or raise the limit"
}

# `context has k0.k1.z2....` under --schema with 1,000, 2,000 and 4,000
# keys: the validator built each of the path's tests with its own copy of
# the path before it (2,000 keys: 2.45 s and 520 MB; 4,000 needs over 2
# GB). The answers are unchanged: `z2` cannot be there, so the policy is
# impossible (CH0531); with a path the schema allows, the tests let the
# reads after them through, and a read without its test is an error.
case_has_path_schema() {
  cat >"$tmp/s.cedarschema" <<'SCHEMA'
entity User { manager?: User };
action view appliesTo { principal: User, resource: User, context: { k0?: { k1?: { k2: Long } } } };
SCHEMA
  local n
  for n in 1000 2000 4000; do
    awk -v n=$n 'BEGIN {
      printf "permit(principal, action, resource) when { context has k0.k1";
      for (i = 2; i < n; i++) printf ".z%d", i;
      print " };" }' >"$tmp/p.cedar"
    measured 0 check --schema "$tmp/s.cedarschema" --policies "$tmp/p.cedar"
    expect "$tmp/out" "p.cedar: ok (1 warning)"
    expect "$tmp/err" "warning\[CH0531\]: policy is impossible"
  done
  linear_peaks
  echo "permit(principal, action, resource) when { context has k0.k1.k2 && context.k0.k1.k2 == 1 && principal has manager.manager.manager && principal.manager.manager.manager == principal };" >"$tmp/q.cedar"
  run 0 check --schema "$tmp/s.cedarschema" --policies "$tmp/q.cedar"
  expect "$tmp/out" "q.cedar: ok"
  echo "permit(principal, action, resource) when { context has k0.k1 && context.k0.k1.k2 == 1 && principal has manager.manager && principal.manager.manager.manager == principal };" >"$tmp/q.cedar"
  run 1 check --schema "$tmp/s.cedarschema" --policies "$tmp/q.cedar"
  expect "$tmp/err" "error\[CH0513\]: attribute \`manager\` of \`User\` is optional and may be absent here"
}

# One action over 1,200, 2,400 and 4,800 principal types and as many
# resource types (up to 310 KB of schema): Cedar's validator checks a policy
# in every pair, k^2 (213 KB: 34 s a policy; these four policies at 1,200:
# 3.6 s of CPU, at 4,800 about a minute). Pairs whose scope is known false are
# left out, and so are all but one when the condition does not read the
# principal (or the resource).
case_validate_environments() {
  local n
  for n in 1200 2400 4800; do
    awk -v n=$n 'BEGIN {
      for (i = 0; i < n; i++) printf "entity P%d { a: Long };\nentity R%d { b: Long };\n", i, i;
      printf "action view appliesTo { principal: [";
      for (i = 0; i < n; i++) printf "%sP%d", (i ? ", " : ""), i;
      printf "], resource: [";
      for (i = 0; i < n; i++) printf "%sR%d", (i ? ", " : ""), i;
      print "] };" }' >"$tmp/s.cedarschema"
    {
      echo "permit(principal == P7::\"x\", action, resource) when { principal.a == resource.b };"
      echo "permit(principal, action, resource is R3) when { principal.a == resource.b };"
      echo "permit(principal, action, resource) when { resource.b > 0 };"
      echo "permit(principal, action, resource in R0::\"r\") when { principal.a == resource.b };"
    } >"$tmp/p.cedar"
    measured 0 check --schema "$tmp/s.cedarschema" --policies "$tmp/p.cedar"
    expect "$tmp/out" "p.cedar: ok"
  done
  linear_peaks
  # A fault found in one pair is still found: P7 has no attribute `c`, and
  # R3's `b` is no string.
  {
    echo "permit(principal == P7::\"x\", action, resource) when { principal.c == resource.b };"
    echo "permit(principal, action, resource is R3) when { resource.b like \"x\" };"
  } >"$tmp/q.cedar"
  run 1 check --schema "$tmp/s.cedarschema" --policies "$tmp/q.cedar"
  expect "$tmp/err" "error\[CH0512\]: \`P7\` has no attribute \`c\`"
  expect "$tmp/err" "error\[CH0510\]: expected \`String\`, found \`Long\`"
}

if [[ "$case_name" == --list ]]; then
  declare -F | sed -n 's/^declare -f case_//p'
  exit 0
fi
if ! declare -F "case_$case_name" >/dev/null; then
  echo "no case $case_name" >&2
  exit 2
fi
"case_$case_name"
echo "PASS: $case_name"
