# Golden cases of the policy author's commands (check, fmt, test, repl),
# sourced by golden_test.sh, whose helpers (run, expect_*, note) they use.
# tests/cli/CMakeLists.txt registers their `case_NAME()` functions too.

# ---- check ------------------------------------------------------------------

case_check_ok() {
  run check --policies "$policies"
  expect_status 0
  expect_no_stderr
}

# Every diagnostic of every file at once, rendered with its underline, then
# one summary error line per file.
case_check_all_diagnostics() {
  run check --policies $golden/several-faults.cedar "$policies" $golden/bad-policy.cedar
  expect_status 1
  [[ $(grep -c '\^' "$stderr_file") -eq 4 ]] || fail "not four underlined diagnostics"
}

case_check_bad_input() {
  run check --policies $golden/no-such-policies.cedar
  expect_errors
  run check --policies tests/cli
  expect_errors
  run check
  expect_errors
  run check --policies "$policies" --frobnicate
  expect_errors
}

# A policy past the verifier's limit of 1,048,576 instructions (issue 15: it
# passed check, and build said "internal error: the compiled bundle does not
# verify" with no position): `context has a.a. ...` with 350,000 keys, three
# instructions a key, 700 KB. The parser's limit of 262,144 tokens a policy
# (CH0005) now refuses it first, and no policy under that limit reaches the
# instruction limit (at most about three instructions for two tokens), so
# check and build both report CH0005 at its first token past the limit, and
# build writes nothing. CH0202 itself, reached with the token limit raised,
# is tested in tests/core/compile/limits_test.cc.
case_check_code_limit() {
  { printf 'permit(principal, action, resource)\nwhen { context has '
    yes a | head -n 350000 | paste -sd.
    printf ' };\n'; } >"$work/long.cedar"
  run check --policies "$work/long.cedar"
  expect_status 1
  grep -q 'long.cedar:2:262152: error\[CH0005\]: policy has more than 262144 tokens' \
    "$stderr_file" || fail "check does not report CH0005 at the first token past the limit"
  run build --policies "$work/long.cedar" -o "$work/long.chb"
  expect_errors
  grep -q 'internal error' "$stderr_file" && fail "build says internal error"
  grep -q 'long.cedar:2:262152: policy has more than 262144 tokens' "$stderr_file" ||
    fail "build does not report CH0005 at its position"
  [[ -e "$work/long.chb" ]] && fail "build wrote a bundle"
  rm -f "$work/long.cedar"
}

# ---- check --schema -------------------------------------------------------------

# The governance example and the standard rules validate against the standard
# model, and are in canonical layout.
case_check_schema_ok() {
  run check --policies "$policies" stdlib/governance.cedar --schema stdlib/governance.cedarschema
  expect_status 0
  expect_no_stderr
  [[ $(grep -c ': ok$' "$stdout_file") -eq 2 ]] || fail "not two files ok"
  capture fmt --check "$policies" stdlib/governance.cedar
  [[ $status -eq 0 ]] || fail "the example or the standard rules are not in canonical layout (charter fmt -w)"
}

# Every syntax and validation fault at once, each underlined; the policies
# after a syntax error are validated all the same.
case_check_schema_faults() {
  run check --policies $golden/invalid-governance.cedar --schema stdlib/governance.cedarschema
  expect_status 1
  [[ -s "$stdout_file" ]] && fail "stdout is not empty"
  grep -q 'error\[CH0101\]' "$stderr_file" || fail "no syntax error"
  [[ $(grep -c 'error\[CH05' "$stderr_file") -eq 6 ]] || fail "not six validation errors"
  grep -q '^charter: error: tests/cli/golden/invalid-governance.cedar: 7 errors, 2 warnings$' "$stderr_file" ||
    fail "no summary line"
}

# Template links validated as Cedar validates them: an undeclared entity type
# in a slot is an error of check and build (no bundle is written), a link
# that applies to no action a warning; without a schema neither is checked.
case_check_template_links() {
  local t=$golden/templates.cedar s=$golden/templates.cedarschema
  run check --policies $t --schema $s --template-linked $golden/links-ok.json
  expect_status 0
  grep -q 'warning\[CH0530\]: link `ml-docs`' "$stderr_file" || fail "no warning for the Team link"
  run check --policies $t --schema $s --template-linked $golden/links-undeclared.json
  expect_status 1
  grep -q 'error\[CH0521\]: link `nope` binds `?principal` to `Nope::"x"`' "$stderr_file" || fail "no CH0521"
  run check --policies $t --template-linked $golden/links-undeclared.json
  expect_status 0
  run build --policies $t --schema $s --template-linked $golden/links-undeclared.json -o "$work/out.bundle"
  expect_status 1
  grep -q '^charter: error: .*link `nope` binds `?principal`' "$stderr_file" || fail "build took the link"
  expect_no_files
  run build --policies $t --schema $s --template-linked $golden/links-ok.json -o "$work/out.bundle"
  expect_status 0
  [[ -s "$work/out.bundle" ]] || fail "no bundle from links that validate"
  rm -f "$work/out.bundle"
  run check --policies $t $t --template-linked $golden/links-ok.json
  expect_errors
}

# A link that does not link (no such template, an id already taken, a slot
# without a value) is an error at the link in the links file, not in the
# policy file (issue 15), for every command that links.
case_template_link_faults() {
  local t=$golden/templates.cedar
  run build --policies $t --template-linked $golden/links-faults.json -o "$work/out.bundle"
  expect_errors
  grep -q '^charter: error: tests/cli/golden/links-faults.json:2:2: link `bob-docs`: there is no template `editor`$' \
    "$stderr_file" || fail "the missing template is not at its link"
  expect_no_files
  run check --policies $t --template-linked $golden/links-id-taken.json
  expect_errors
  grep -q '^charter: error: tests/cli/golden/links-id-taken.json:2:3: ' "$stderr_file" || fail "the id is not at its link"
  run authorize --policies $t --template-linked $golden/links-missing-slot.json --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_errors
  grep -q '^charter: error: tests/cli/golden/links-missing-slot.json:1:2: ' "$stderr_file" || fail "the slot is not at its link"
  # A slot bound, in the string form, to an entity of a reserved type name
  # (the object form and Cedar refuse them): refused at the value.
  local reserved at
  for reserved in if:2:73 __cedar:2:76; do
    at=${reserved#*:}
    reserved=${reserved%%:*}
    run build --policies $t --template-linked $golden/links-reserved-${reserved#__}.json -o "$work/out.bundle"
    expect_errors
    grep -qF "charter: error: tests/cli/golden/links-reserved-${reserved#__}.json:$at: \`?principal\` is not an entity reference: \`$reserved\` is not a valid entity type name; write it as" \
      "$stderr_file" || fail "the reserved type name $reserved is not refused at its link"
    expect_no_files
  done
}

# A schema with faults: they are rendered, the policy files are still
# compiled (their faults reported), and no file is called ok.
case_check_schema_bad_schema() {
  run check --policies "$policies" $golden/bad-policy.cedar --schema $golden/bad-governance.cedarschema
  expect_status 1
  [[ -s "$stdout_file" ]] && fail "a file is called ok without its schema"
  [[ $(grep -c '^charter: error: ' "$stderr_file") -eq 2 ]] || fail "not one summary line for each faulty file"
  run check --policies "$policies" --schema $golden/no-such.cedarschema
  expect_errors
  run check --policies "$policies" --schema
  expect_errors
}

case_help_authoring() {
  local command
  for command in check fmt test repl lsp; do
    run "$command" --help
    expect_status 0
    expect_no_stderr
    grep -q "^Usage: charter $command" "$stdout_file" || fail "no usage for $command"
  done
}

# ---- fmt --------------------------------------------------------------------

case_fmt_governance() {
  run fmt "$policies"
  expect_status 0
  expect_no_stderr
  cp "$stdout_file" "$tmp/once.cedar"
  capture fmt "$tmp/once.cedar"
  cmp -s "$tmp/once.cedar" "$stdout_file" || fail "formatting the output changes it"
  [[ $(grep -c '^ *//' "$policies") -eq $(grep -c '^ *//' "$tmp/once.cedar") ]] ||
    fail "comments were lost"
}

case_fmt_check_and_write() {
  cp $golden/untidy.cedar "$work/policies.cedar"
  cp $golden/request-allow.json "$work/untouched.json"
  run fmt --check "$work/policies.cedar"
  expect_status 1
  run fmt -w "$work/policies.cedar"
  expect_status 0
  expect_no_stderr
  [[ -s "$stdout_file" ]] && fail "fmt -w printed something"
  capture fmt $golden/untidy.cedar
  cmp -s "$stdout_file" "$work/policies.cedar" || fail "-w wrote something else than stdout shows"
  run fmt --check "$work/policies.cedar"
  expect_status 0
  expect_no_stderr
  [[ $(find "$work" -mindepth 1 | wc -l) -eq 2 ]] || fail "fmt -w left other files behind"
}

# A .charter file keeps its declarations and comments through `fmt -w`: the
# rewritten copy of the governance example's scheduling.charter builds a
# bundle that disassembles and schedules as the original's (the formatter
# once kept only its comments: 152 lines became 9, exit 0).
case_fmt_charter() {
  cp $ex/scheduling.charter "$work/scheduling.charter"
  run fmt -w "$work/scheduling.charter"
  expect_status 0
  expect_no_stderr
  run fmt --check "$work/scheduling.charter"
  expect_status 0
  [[ $(grep -c '//' $ex/scheduling.charter) -eq $(grep -c '//' "$work/scheduling.charter") ]] ||
    fail "comments were lost"
  [[ $(grep -c '^queue ' "$work/scheduling.charter") -eq 10 ]] || fail "not ten queues"
  local f
  for f in original formatted; do
    local src=$ex/scheduling.charter
    [[ $f == formatted ]] && src="$work/scheduling.charter"
    capture build --policies "$policies" --policies "$src" -o "$tmp/$f.bundle"
    expect_status 0
    capture disasm "$tmp/$f.bundle"
    expect_status 0
    cp "$stdout_file" "$tmp/$f.disasm"
    capture schedule --bundle "$tmp/$f.bundle" --workloads $golden/governance-workloads.json
    expect_status 0
    cp "$stdout_file" "$tmp/$f.schedule"
  done
  cmp -s "$tmp/original.disasm" "$tmp/formatted.disasm" || fail "the bundles disassemble differently"
  cmp -s "$tmp/original.schedule" "$tmp/formatted.schedule" || fail "the bundles schedule differently"
  [[ -s "$tmp/original.schedule" ]] || fail "nothing scheduled"
  # Every shipped policy and declaration file is in canonical layout.
  local shipped
  mapfile -t shipped < <(find examples stdlib \( -name '*.cedar' -o -name '*.charter' \
    -o -name '*.cedarschema' \) | sort)
  [[ ${#shipped[@]} -ge 9 ]] || fail "only ${#shipped[@]} shipped files found"
  [[ $(printf '%s\n' "${shipped[@]}" | grep -c '\.cedarschema$') -ge 3 ]] || fail "no shipped schema found"
  capture fmt --check "${shipped[@]}"
  [[ $status -eq 0 ]] || fail "not in canonical layout (charter fmt -w): $(cat "$stdout_file" "$stderr_file")"
}

# A schema file is formatted as a schema, by its extension: -w rewrites an
# untidy one keeping its comments, and --check then passes; Cedar's JSON
# schema format is refused and left as it is.
case_fmt_schema() {
  printf '%s\n' 'namespace Org { // the model' '// A person.' \
    'entity User in Team {email:String, // work address' '  manager?:User};' \
    'action view appliesTo {principal:User,resource:Doc};}' > "$work/s.cedarschema"
  run fmt -w "$work/s.cedarschema"
  expect_status 0
  expect_no_stderr
  local want
  want=$(printf '%s\n' 'namespace Org { // the model' '  // A person.' '  entity User in [Team] {' \
    '    email: String, // work address' '    manager?: User,' '  };' \
    '  action view appliesTo { principal: [User], resource: [Doc] };' '}')
  [[ $(cat "$work/s.cedarschema") == "$want" ]] || fail "schema formatted as: $(cat "$work/s.cedarschema")"
  run fmt --check "$work/s.cedarschema"
  expect_status 0
  printf '%s\n' '{"": {"entityTypes": {}, "actions": {}}}' > "$work/j.cedarschema"
  cp "$work/j.cedarschema" "$work/j.orig"
  run fmt -w "$work/j.cedarschema"
  expect_errors
  grep -q "JSON schema format is not formatted" "$stderr_file" || fail "no clear refusal: $(cat "$stderr_file")"
  cmp -s "$work/j.orig" "$work/j.cedarschema" || fail "a JSON schema file was changed"
}

case_fmt_bad_input() {
  cp $golden/bad-policy.cedar "$work/bad.cedar"
  run fmt -w "$work/bad.cedar"
  expect_errors
  cmp -s $golden/bad-policy.cedar "$work/bad.cedar" || fail "a file that does not parse was changed"
  rm "$work/bad.cedar"
  run fmt $golden/several-faults.cedar "$policies"
  expect_errors 3
  run fmt $golden/no-such-policies.cedar
  expect_errors
  run fmt
  expect_errors
  run fmt --check -w "$policies"
  expect_errors
  # Each file on its own: the untidy one is listed, or rewritten, though the
  # other does not parse.
  cp $golden/untidy.cedar "$work/good.cedar"
  cp $golden/bad-policy.cedar "$work/bad.cedar"
  run fmt --check "$work/good.cedar" "$work/bad.cedar"
  expect_status 1
  [[ $(cat "$stdout_file") == "$work/good.cedar" ]] || fail "--check does not list the untidy file"
  run fmt -w "$work/good.cedar" "$work/bad.cedar"
  expect_errors
  cmp -s $golden/untidy.cedar "$work/good.cedar" && fail "-w left the good file as it was"
  cmp -s $golden/bad-policy.cedar "$work/bad.cedar" || fail "a file that does not parse was changed"
  capture fmt $golden/untidy.cedar
  cmp -s "$stdout_file" "$work/good.cedar" || fail "-w wrote something else than stdout shows"
  rm "$work/good.cedar" "$work/bad.cedar"
}

# ---- test -------------------------------------------------------------------

case_test_governance() {
  run test "$ex" --coverage
  expect_status 0
  expect_no_stderr
  grep -q '^coverage: .*: \([0-9]*\) of \1 policies exercised$' "$stdout_file" ||
    fail "not full policy coverage"
}

case_test_failure() {
  run test $golden/failing.test.json --coverage
  expect_status 1
  grep -q '^1 passed, 1 failed$' "$stdout_file" || fail "no summary"
}

case_test_bad_input() {
  run test $golden/bad.test.json
  expect_status 1
  run test $golden/bad-reasons.test.json
  expect_status 1
  grep -q '"reasons" must be an array of policy ids' "$stderr_file" || fail "a non-array reasons list passed"
  run test $golden/no-such.test.json
  expect_status 1
  run test "$policies"
  expect_status 1
  run test
  expect_errors
}

# The same run as one JSON object: the cases, the totals and the coverage.
case_test_governance_json() {
  run test "$ex" --coverage --format json
  expect_status 0
  expect_no_stderr
  node -e '
    const r = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const cases = r.files.flatMap((f) => f.cases);
    if (r.failed !== 0 || r.passed !== cases.length || !cases.every((c) => c.passed)) throw "totals";
    // The authorization cases (governance.test.json) decide requests; the
    // scheduling cases (scheduling.test.json) run cycles.
    const decided = r.files.find((f) => f.file.endsWith("/governance.test.json")).cases;
    const c = r.coverage[0];
    if (c.requests !== decided.length || !c.policies.every((p) => p.exercised)) throw "policy coverage";
    const rules = r.scheduling_rules[0].rules;
    const exercised = rules.filter((x) => x.exercised).map((x) => x.id);
    for (const id of ["restricted-data-never-borrows", "interactive-never-preempted"]) {
      if (!exercised.includes(id)) throw "scheduling rule " + id;
    }
    for (const p of c.policies) for (const k of p.clauses) {
      if (k.covered !== (k.true > 0 && k.false > 0)) throw "covered";
    }' <"$stdout_file" || fail "not the expected JSON"
}

# Faults inside a test file are reported at their line and column in it,
# inline entities and requests included.
case_test_file_positions() {
  run test $golden/inline-entities.test.json
  expect_status 1
  grep -q 'inline-entities.test.json:5:63: ' "$stderr_file" || fail "not the place in the file"
  run test $golden/inline-request.test.json
  expect_status 1
  grep -q 'inline-request.test.json:6:56: ' "$stderr_file" || fail "not the place in the file"
  run test $golden/misspelt.test.json
  expect_status 1
  grep -q 'misspelt.test.json:6:26: case 1 has no member "reason"' "$stderr_file" || fail "a misspelt member passed"
  # Faults in the file's own structure at the member they are about, not at 1:1.
  run test $golden/cases-object.test.json
  expect_status 1
  grep -q 'cases-object.test.json:3:12: "cases" must be an array of test cases' "$stderr_file" ||
    fail "a non-array cases not placed"
  run test $golden/policies-array.test.json
  expect_status 1
  grep -q 'policies-array.test.json:2:15: "policies" must be the path of a policy file' "$stderr_file" ||
    fail "a non-string policies not placed"
  run test "$ex" --format yaml
  expect_errors
}

# ---- repl -------------------------------------------------------------------

# The REPL reading a script from a pipe (the terminal is tests/cli/repl_pty_test.sh).
case_repl_pipe() {
  status=0
  "$charter_bin" repl <$golden/repl-session.txt >"$stdout_file" 2>"$stderr_file" || status=$?
  {
    echo "\$ charter repl < $golden/repl-session.txt"
    section stdout "$stdout_file"
    section stderr "$stderr_file"
    echo "--- exit $status"
  } >>"$transcript"
  expect_status 0
  expect_no_stderr
}

# Issue 38, point 4: commands by a unique prefix, "did you mean" for a
# slip, the candidates of an ambiguous prefix; `:context` in Cedar's own
# syntax as well as JSON, with errors at their column in either; `:explain
# --brief`; counts of one in the singular; `~/` in a file name; and no pager
# when stdout is not a terminal, whatever $PAGER says.
case_repl_commands() {
  mkdir -p "$work/home"
  sed -n '1,3p' $golden/repl-policies.cedar >"$work/home/one.cedar"
  printf '[{"uid": {"type": "Org::User", "id": "ada"}, "attrs": {"level": 4}, "parents": []}]\n' >"$work/home/one.json"
  local script=':load ~/one.cedar
:load entities ~/one.json
:ent
:explian
:e
:ex Org::User::"ada" view Org::Task::"t1"
:lo policies tests/cli/golden/repl-policies.cedar
:lo entities tests/cli/golden/repl-entities.json
:context {"mfa": true, "now": datetime("2025-11-03T09:00:00Z"), "who": Org::User::"ada", "net": ip("10.0.0.1")}
:context
context.now < datetime("2026-01-01T00:00:00Z") && context.who.level > 3
:context {"mfa": true, "n": 1 + 1}
:context {"mfa": true,
  "at": datetime("2025-11-03")}
:context {"mfa": true, "at": datetime("2025-11-03T09:00:00Z"}

:context {"mfa": tru}
:context {"mfa": true, "x": Org::User::"nobody".level}
:context [1, 2]
:context 1 + 1
:context {"mfa": {"__entity": {"type": "Org::User", "id": "ada"}}}
:context {"mfa": true}
:explain --brief Org::User::"ada" submit Org::Task::"t1"
:explain --brief Org::User::"bo" submit Org::Task::"t1"
:explain --short
:qu'
  status=0
  printf '%s\n' "$script" | HOME="$work/home" PAGER="sed s/^/paged:/" "$charter_bin" repl \
    >"$stdout_file" 2>"$stderr_file" || status=$?
  {
    echo "\$ HOME=<tmp>/home PAGER='sed s/^/paged:/' charter repl"
    sed -e 's/^/> /' <<<"$script"
    section stdout "$stdout_file"
    section stderr "$stderr_file"
    echo "--- exit $status"
  } | sed -e "s|$work|<tmp>|g" >>"$transcript"
  expect_status 0
  expect_no_stderr
  grep -q '^loaded 1 policy from ' "$stdout_file" || fail "not one policy in the singular"
  grep -q '^loaded 1 entity from ' "$stdout_file" || fail "not one entity in the singular"
  grep -q '^1 entity from ' "$stdout_file" || fail ":ent did not run :entities"
  grep -q "did you mean \`:explain\`" "$stdout_file" || fail "no did-you-mean"
  grep -q '^error: `:e` is ambiguous: ' "$stdout_file" || fail "an ambiguous prefix ran"
  grep -q '^true$' "$stdout_file" || fail "the Cedar context was not used"
  grep -q '^ALLOW: permitted by `seniors-submit`$' "$stdout_file" || fail "no brief explanation"
  ! grep -q 'paged:' "$stdout_file" || fail "paged while stdout is not a terminal"
  rm -rf "$work/home"
}

# `:load FILE` without a kind loads what the file holds when its name does
# not say (issue 15, "Also"): copies of the governance example's files with
# no extension or a plain .json, in text and in JSON, then files it cannot
# tell (a README, an empty file, a request) and one that does not exist.
case_repl_load_by_content() {
  local d="$work/load"
  mkdir -p "$d"
  cp examples/governance/policies.cedar "$d/policies"
  cp stdlib/governance.cedarschema "$d/schema"
  cp examples/governance/entities.json "$d/entities"
  cat >"$d/policy-set.json" <<'JSON'
{"staticPolicies": {"all": {"effect": "permit", "principal": {"op": "All"}, "action": {"op": "All"},
  "resource": {"op": "All"}, "conditions": []}}, "templates": {}, "templateLinks": []}
JSON
  cat >"$d/schema.json" <<'JSON'
{"": {"entityTypes": {"User": {}}, "actions": {"view": {"appliesTo": {"principalTypes": ["User"],
  "resourceTypes": ["User"]}}}}}
JSON
  printf '# Notes\npermit is a word\n' >"$d/README"
  : >"$d/empty"
  printf '{"principal": "User::\\"a\\""}\n' >"$d/request"
  status=0
  printf '%s\n' ":load $d/schema.json" ":load $d/policy-set.json" ":load $d/schema" ":load $d/policies" \
    ":load $d/entities" ":load $d/README" ":load $d/empty" ":load $d/request" ":load $d/missing" |
    "$charter_bin" repl >"$stdout_file" 2>"$stderr_file" || status=$?
  {
    echo "\$ charter repl  # :load FILE of each kind"
    section stdout "$stdout_file"
    section stderr "$stderr_file"
    echo "--- exit $status"
  } | sed -e "s|$work|<tmp>|g" >>"$transcript"
  expect_status 0
  [[ $(grep -c '^loaded ' "$stdout_file") -eq 5 ]] || fail "not five files loaded"
  rm -rf "$d"
}

# The REPL with a schema (tests/cli/golden/repl-model.cedarschema).
case_repl_schema() {
  local args=(--schema $golden/repl-model.cedarschema --policies $golden/repl-policies.cedar
    --entities $golden/repl-entities.json)
  status=0
  "$charter_bin" repl "${args[@]}" <$golden/repl-schema-session.txt >"$stdout_file" 2>"$stderr_file" || status=$?
  {
    echo "\$ charter repl ${args[*]} < $golden/repl-schema-session.txt"
    section stdout "$stdout_file"
    section stderr "$stderr_file"
    echo "--- exit $status"
  } >>"$transcript"
  expect_status 0
  expect_no_stderr
  grep -q '^ALLOW  reasons: seniors-submit$' "$stdout_file" || fail "no decision"
  # A schema that refuses the loaded policies is not loaded.
  printf ':load schema %s\n:schema\n' $golden/repl-model.cedarschema |
    "$charter_bin" repl --policies $golden/repl-bad-policies.cedar >"$stdout_file" 2>&1
  grep -q '^no schema loaded' "$stdout_file" || fail "a schema that refuses the policies was loaded"
}

# :edit runs $EDITOR on a loaded file and loads it again; an edit that
# breaks the file, or an editor that fails, leaves the loaded policies.
case_repl_edit() {
  cp $golden/repl-policies.cedar "$work/policies.cedar"
  # The editor: the first edit raises the level the policy asks for, the
  # second breaks the file.
  cat >"$work/edit.sh" <<'EOF'
if grep -q '>= 3' "$1"; then sed -i -e 's/>= 3/>= 5/' "$1"; else echo 'permit (' >>"$1"; fi
EOF
  local request='Org::User::"ada" submit Org::Task::"t1"'
  local script=":context {\"mfa\": true}
$request
:edit
$request
:edit
$request"
  repl_edit_run() {  # EDITOR
    status=0
    printf '%s\n' "$script" | EDITOR="$1" "$charter_bin" repl --policies "$work/policies.cedar" \
      --entities $golden/repl-entities.json >"$stdout_file" 2>"$stderr_file" || status=$?
    {
      echo "\$ EDITOR='$1' charter repl --policies <tmp>/policies.cedar --entities $golden/repl-entities.json"
      sed -e 's/^/> /' <<<"$script"
      section stdout "$stdout_file"
      section stderr "$stderr_file"
      echo "--- exit $status"
      echo
    } | sed -e "s|$work|<tmp>|g" >>"$transcript"
    expect_status 0
  }
  repl_edit_run "sh $work/edit.sh"
  [[ $(grep -c '^ALLOW  reasons: seniors-submit$' "$stdout_file") -eq 1 ]] || fail "not the policies first loaded"
  [[ $(grep -c '^DENY$' "$stdout_file") -eq 2 ]] || fail "the edit did not take, or the broken one replaced it"
  cp $golden/repl-policies.cedar "$work/policies.cedar"
  repl_edit_run false
  [[ $(grep -c '^ALLOW  reasons: seniors-submit$' "$stdout_file") -eq 3 ]] || fail "a failed edit changed the policies"
  rm "$work/edit.sh" "$work/policies.cedar"
}

# Entities that fail to load leave the REPL without entities, not with a
# dangling store: `:entities` says so and the session goes on.
case_repl_bad_entities() {
  status=0
  printf ':entities\n:policies\n' |
    "$charter_bin" repl --entities $golden/bad-entities.json >"$stdout_file" 2>"$stderr_file" || status=$?
  {
    echo "\$ printf ':entities\\n:policies\\n' | charter repl --entities $golden/bad-entities.json"
    section stdout "$stdout_file"
    section stderr "$stderr_file"
    echo "--- exit $status"
  } >>"$transcript"
  expect_status 0
  grep -q '^no entities loaded' "$stdout_file" || fail "no 'no entities loaded' line"
}
