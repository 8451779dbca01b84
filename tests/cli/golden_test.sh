#!/usr/bin/env bash
# Golden tests of the `charter` command line: each case runs the binary,
# records every command with its stdout, stderr and exit status in a
# transcript, checks the invariants every case must keep (an error is one
# `charter: error:` line, exit 1, nothing on stdout, no file left behind),
# and compares the transcript with tests/cli/golden/CASE.golden.
#
#   tests/cli/golden_test.sh CHARTER_BINARY CASE     # run one case
#   tests/cli/golden_test.sh CHARTER_BINARY --list   # the case names
#   CHARTER_UPDATE_GOLDEN=1 ... CASE                 # rewrite its golden file
#
# ctest registers one test per case (tests/cli/CMakeLists.txt finds them by
# their `case_NAME()` functions). Commands run from the repository root with
# relative paths; the temporary directory appears as <tmp>.
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 CHARTER_BINARY CASE|--list" >&2
  exit 2
fi
charter_bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
case_name="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root" || exit 2

golden=tests/cli/golden
ex=examples/governance
policies=$ex/policies.cedar
entities=$ex/entities.json
requests=$ex/requests.json

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
work="$tmp/work"     # what commands may write; shown as <tmp>
mkdir -p "$work"
transcript="$tmp/transcript"
: >"$transcript"
failures=0

fail() {
  echo "FAIL [$case_name]: $*" >&2
  failures=$((failures + 1))
}

# The output of the last `run`.
status=0
stdout_file="$tmp/stdout"
stderr_file="$tmp/stderr"

section() {  # NAME FILE
  [[ -s "$2" ]] || return 0
  echo "--- $1"
  cat "$2"
  if [[ -n "$(tail -c 1 "$2")" ]]; then
    echo
    echo "\\ no newline at end of $1"
  fi
}

# run ARGS...: runs charter with ARGS and appends it to the transcript. Its
# stdin is /dev/null, or the file $stdin_from names (shown as `< FILE`).
stdin_from=""
run() {
  status=0
  "$charter_bin" "$@" >"$stdout_file" 2>"$stderr_file" <"${stdin_from:-/dev/null}" || status=$?
  {
    printf '$ charter'
    [[ $# -eq 0 ]] || printf ' %q' "$@"
    [[ -z "$stdin_from" ]] || printf ' < %q' "$stdin_from"
    echo
    section stdout "$stdout_file"
    section stderr "$stderr_file"
    echo "--- exit $status"
    echo
  } | sed -e "s|$work|<tmp>|g" >>"$transcript"
}

note() { echo "# $*" >>"$transcript"; }

# capture ARGS...: runs charter like `run`, but leaves the transcript alone.
capture() {
  status=0
  "$charter_bin" "$@" >"$stdout_file" 2>"$stderr_file" </dev/null || status=$?
}

expect_status() {
  [[ $status -eq $1 ]] || fail "exit status $status, expected $1"
}

# An error: exit 1, nothing on stdout, exactly N (default 1) lines on stderr,
# each starting with `charter: error: `.
expect_errors() {
  local n="${1:-1}" lines
  expect_status 1
  [[ -s "$stdout_file" ]] && fail "stdout is not empty on error"
  lines=$(wc -l <"$stderr_file")
  [[ $lines -eq $n ]] || fail "$lines lines on stderr, expected $n"
  if grep -qv '^charter: error: ' "$stderr_file"; then
    fail "a stderr line does not start with 'charter: error: '"
  fi
  if grep -qF "$root" "$stderr_file"; then fail "stderr holds an absolute path"; fi
}

expect_no_stderr() {
  [[ -s "$stderr_file" ]] && fail "unexpected stderr: $(head -c 300 "$stderr_file")"
  return 0
}

expect_no_files() {  # nothing was written into the work directory
  local left
  left=$(find "$work" -mindepth 1 | sed -e "s|$work|<tmp>|")
  [[ -z "$left" ]] || fail "files left behind: $left"
}

# Pseudo-random bytes that are the same on every run: N bytes from SEED.
bytes() {  # SEED N
  local seed="$1" n="$2" hex=""
  while [[ ${#hex} -lt $((2 * n)) ]]; do
    seed=$(printf '%s' "$seed" | sha256sum | cut -d' ' -f1)
    hex+="$seed"
  done
  printf "$(printf '%s' "${hex:0:$((2 * n))}" | sed -e 's/../\\x&/g')"
}

authorize_batch() {  # [--policies P | --bundle B] FORMAT
  run authorize "$1" "$2" --entities "$entities" --requests "$requests" --format "$3"
}

# ---- decisions ------------------------------------------------------------

case_governance_batch_text() {
  authorize_batch --policies "$policies" text
  expect_status 0
  expect_no_stderr
  [[ $(wc -l <"$stdout_file") -eq $(grep -c '"description"' "$requests") ]] ||
    fail "not one line per request"
}

case_governance_batch_jsonl() {
  authorize_batch --policies "$policies" jsonl
  expect_status 0
  expect_no_stderr
  grep -qv '^{"decision":"\(allow\|deny\)","reasons":\[.*\],"errors":\[.*\]}$' "$stdout_file" &&
    fail "a line is not a decision object"
  return 0
}

case_governance_batch_json() {
  authorize_batch --policies "$policies" json
  expect_status 0
  expect_no_stderr
  [[ $(wc -l <"$stdout_file") -eq 1 ]] || fail "not one line"
}

authorize_one() {  # REQUEST-FILE FORMAT
  run authorize --policies "$policies" --entities "$entities" --request-json "$1" --format "$2"
}

case_single_allow_text() {
  authorize_one $golden/request-allow.json text
  expect_status 0
  expect_no_stderr
}

case_single_allow_json() {
  authorize_one $golden/request-allow.json json
  expect_status 0
  expect_no_stderr
}

case_single_deny_text() {
  authorize_one $golden/request-deny.json text
  expect_status 2
  expect_no_stderr
}

case_single_deny_json() {
  authorize_one $golden/request-deny.json json
  expect_status 2
  expect_no_stderr
}

case_single_default_format_is_text() {
  run authorize --policies "$policies" --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_status 0
  [[ "$(cat "$stdout_file")" == ALLOW ]] || fail "expected ALLOW"
}

# A policy that errs: skipped, reported, and the request still decided.
case_single_policy_error() {
  authorize_one $golden/request-errs.json text
  expect_status 2
  # Where it failed, as a diagnostic says it: file:line:col of the expression.
  grep -q '^charter: warning: examples/governance/policies.cedar:163:8: policy `owners-cancel-own-tasks` was skipped' \
    "$stderr_file" || fail "the erring policy is not reported with its position"
  authorize_one $golden/request-errs.json json
  expect_status 2
  expect_no_stderr
}

# Each evaluation error says where the failing expression is: its byte
# offsets, and with --policies its line and column.
case_single_policy_error_positions() {
  local errs=(--entities $golden/errs-entities.json --request-json $golden/errs-request.json)
  run authorize --policies $golden/errs.cedar "${errs[@]}" --format json
  expect_status 2
  expect_no_stderr
  local bundle="$work/errs.bundle"
  capture build --policies $golden/errs.cedar -o "$bundle"
  run authorize --bundle "$bundle" "${errs[@]}" --format json
  expect_status 2
  expect_no_stderr
}

case_bundle_same_decisions() {
  local bundle="$work/governance.bundle"
  run build --policies "$policies" -o "$bundle"
  expect_status 0
  expect_no_stderr
  [[ -s "$stdout_file" ]] && fail "build printed something"
  [[ -s "$bundle" ]] || fail "no bundle written"
  local format
  for format in text jsonl; do
    # The --policies outputs are pinned by the governance_batch_* cases.
    capture authorize --policies "$policies" --entities "$entities" --requests "$requests" \
      --format $format
    # With the policy text at hand, an error's position also has its line
    # and column; a bundle gives only the byte offsets.
    sed -e 's/,"line":[0-9]*,"column":[0-9]*}/}/g' "$stdout_file" >"$tmp/from-policies"
    run authorize --bundle "$bundle" --entities "$entities" --requests "$requests" \
      --format $format
    expect_status 0
    cmp -s "$tmp/from-policies" "$stdout_file" ||
      fail "--bundle decides differently from --policies ($format)"
  done
  run authorize --bundle "$bundle" --entities "$entities" \
    --request-json $golden/request-deny.json
  expect_status 2
  # Building again replaces the bundle whole, and leaves no temporary file.
  run build --policies "$policies" -o "$bundle"
  expect_status 0
  [[ $(find "$work" -mindepth 1 | wc -l) -eq 1 ]] || fail "build left other files behind"
}

# ---- the command line -----------------------------------------------------

case_version() {
  run version
  expect_status 0
  grep -q '^charter [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*$' "$stdout_file" ||
    fail "not 'charter MAJOR.MINOR.PATCH'"
  run version extra
  expect_errors
  run version --frobnicate
  expect_errors
  # `charter --version` says the same (the golden shows both).
  run --version
  expect_status 0
  grep -q '^charter [0-9][0-9]*\.[0-9][0-9]*\.[0-9][0-9]*$' "$stdout_file" ||
    fail "--version: not 'charter MAJOR.MINOR.PATCH'"
}

case_no_command() {
  run
  expect_status 1
  [[ -s "$stdout_file" ]] && fail "usage went to stdout"
  grep -q '^Usage: charter' "$stderr_file" || fail "no usage on stderr"
}

case_help() {
  local command
  run --help
  expect_status 0
  expect_no_stderr
  for command in access admit audit authorize bench build check diff disasm explain export fmt import prove query repl report schedule simulate test version; do
    run "$command" --help
    expect_status 0
    expect_no_stderr
    grep -q "^Usage: charter $command" "$stdout_file" || fail "no usage for $command"
  done
}

case_unknown_flag() {
  run authorize --policies "$policies" --entities "$entities" --request-json \
    $golden/request-allow.json --frobnicate
  expect_errors
  # Reported even when a required flag is missing too.
  run authorize --polices "$policies" --entities "$entities"
  expect_errors
}

case_unknown_command() {
  run frobnicate
  expect_errors
}

case_missing_required_flag() {
  run authorize --policies "$policies" --request-json $golden/request-allow.json
  expect_errors
  run authorize --entities "$entities" --request-json $golden/request-allow.json
  expect_errors
  run authorize --policies "$policies" --entities "$entities"
  expect_errors
  run build --policies "$policies"
  expect_errors
  run authorize --policies "$policies" --entities "$entities" --request-json
  expect_errors
}

case_conflicting_flags() {
  run authorize --policies "$policies" --bundle "$policies" --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_errors
  run authorize --policies "$policies" --entities "$entities" \
    --request-json $golden/request-allow.json --requests "$requests"
  expect_errors
}

# A flag that takes one value, given twice, says so (issue 15: CLI11's
# "At Most 1 required but received 2").
case_flag_given_twice() {
  run build --policies "$policies" --policies "$policies" -o "$work/out.bundle"
  expect_errors
  expect_no_files
  run authorize --policies "$policies" --entities "$entities" --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_errors
}

case_bad_format() {
  run authorize --policies "$policies" --entities "$entities" \
    --request-json $golden/request-allow.json --format yaml
  expect_errors
}

# ---- bad input --------------------------------------------------------------

case_missing_file() {
  run authorize --policies $golden/no-such-policies.cedar --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_errors
  run authorize --policies "$policies" --entities $golden/no-such-entities.json \
    --request-json $golden/request-allow.json
  expect_errors
  run authorize --policies "$policies" --entities "$entities" \
    --requests $golden/no-such-requests.json
  expect_errors
  run authorize --bundle $golden/no-such.bundle --entities "$entities" \
    --requests "$requests"
  expect_errors
  run build --policies $golden/no-such-policies.cedar -o "$work/out.bundle"
  expect_errors
  expect_no_files
}

case_directory_as_file() {
  run authorize --policies "$policies" --entities "$ex" --requests "$requests"
  expect_errors
  run authorize --bundle "$ex" --entities "$entities" --requests "$requests"
  expect_errors
}

case_malformed_entities() {
  run authorize --policies "$policies" --entities $golden/bad-entities.json \
    --request-json $golden/request-allow.json
  expect_errors
  grep -q 'bad-entities.json:[0-9]*:[0-9]*: ' "$stderr_file" || fail "no line:col"
}

case_malformed_request() {
  run authorize --policies "$policies" --entities "$entities" \
    --request-json $golden/bad-request.json
  expect_errors
  grep -q 'bad-request.json:[0-9]*:[0-9]*: ' "$stderr_file" || fail "no line:col"
  # A single request where an array is expected, and the other way round.
  run authorize --policies "$policies" --entities "$entities" \
    --requests $golden/request-allow.json
  expect_errors
  run authorize --policies "$policies" --entities "$entities" --request-json "$requests"
  expect_errors
}

case_policy_syntax_error() {
  run authorize --policies $golden/bad-policy.cedar --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_errors
  grep -q 'bad-policy.cedar:[0-9]*:[0-9]*: ' "$stderr_file" || fail "no line:col"
  run build --policies $golden/bad-policy.cedar -o "$work/out.bundle"
  expect_errors
  expect_no_files
}

# Every fault in the inputs is reported at once, one line each.
case_several_faults() {
  run authorize --policies $golden/bad-policy.cedar --entities $golden/bad-entities.json \
    --request-json $golden/bad-request.json
  expect_errors 3
}

case_corrupt_bundle() {
  local good="$tmp/good.bundle" size
  "$charter_bin" build --policies "$policies" -o "$good" || fail "cannot build a bundle"
  size=$(wc -c <"$good")
  note "truncated to half its size"
  head -c $((size / 2)) "$good" >"$work/truncated.bundle"
  run authorize --bundle "$work/truncated.bundle" --entities "$entities" --requests "$requests"
  expect_errors
  note "truncated to its first 8 bytes"
  head -c 8 "$good" >"$work/header.bundle"
  run authorize --bundle "$work/header.bundle" --entities "$entities" --requests "$requests"
  expect_errors
  note "empty"
  : >"$work/empty.bundle"
  run authorize --bundle "$work/empty.bundle" --entities "$entities" --requests "$requests"
  expect_errors
  note "random bytes"
  bytes charter 4096 >"$work/random.bundle"
  run authorize --bundle "$work/random.bundle" --entities "$entities" --requests "$requests"
  expect_errors
  note "random bytes behind a valid header"
  { head -c 8 "$good"; bytes header 4096; } >"$work/random-body.bundle"
  run authorize --bundle "$work/random-body.bundle" --entities "$entities" --requests "$requests"
  expect_errors
  note "policy text instead of a bundle"
  run authorize --bundle "$policies" --entities "$entities" --requests "$requests"
  expect_errors
}

case_build_into_missing_directory() {
  run build --policies "$policies" -o "$work/no-such-dir/governance.bundle"
  expect_errors
  expect_no_files
}

# What -o must not replace: a FIFO (a device would be replaced the same way),
# a directory, nothing (an empty path), an input of the build (also through a
# symlink); and a write cut short by `ulimit -f` leaves no temporary file.
case_build_refuses_unsafe_outputs() {
  mkfifo "$work/fifo"
  run build --policies "$policies" -o "$work/fifo"
  expect_errors
  [[ -p "$work/fifo" ]] || fail "the FIFO was replaced"
  # Through a symlink to the FIFO: refused, the link and the FIFO as they were.
  ln -s fifo "$work/to-fifo"
  run build --policies "$policies" -o "$work/to-fifo"
  expect_errors
  [[ -L "$work/to-fifo" && "$(readlink "$work/to-fifo")" == fifo && -p "$work/fifo" ]] ||
    fail "the symlink to the FIFO, or the FIFO, changed"
  rm "$work/fifo" "$work/to-fifo"
  # A character device: as root, the rename replaced /dev/null with a
  # regular file. Directly and through a symlink.
  run build --policies "$policies" -o /dev/null
  expect_errors
  [[ -c /dev/null ]] || fail "/dev/null is no longer a character device"
  ln -s /dev/null "$work/to-null"
  run build --policies "$policies" -o "$work/to-null"
  expect_errors
  [[ -L "$work/to-null" && "$(readlink "$work/to-null")" == /dev/null && -c /dev/null ]] ||
    fail "the symlink to /dev/null, or /dev/null, changed"
  rm "$work/to-null"
  run build --policies "$policies" -o "$work"
  expect_errors
  run build --policies "$policies" -o ""
  expect_errors
  cp "$policies" "$work/policies.cedar"
  ln -s policies.cedar "$work/link.cedar"
  run build --policies "$work/policies.cedar" -o "$work/link.cedar"
  expect_errors
  cmp -s "$policies" "$work/policies.cedar" || fail "the input was overwritten"
  rm "$work/policies.cedar" "$work/link.cedar"
  # (`run`, in a subshell whose file size limit is 1 KiB, less than the bundle)
  status=0
  (ulimit -f 1; exec "$charter_bin" build --policies "$policies" -o "$work/out.bundle") \
    >"$stdout_file" 2>"$stderr_file" </dev/null || status=$?
  {
    echo "\$ (ulimit -f 1; charter build --policies $policies -o <tmp>/out.bundle)"
    section stderr "$stderr_file"
    echo "--- exit $status"
    echo
  } | sed -e "s|$work|<tmp>|g" >>"$transcript"
  expect_errors
  expect_no_files
}

# One way to give inputs (issue 31, point 3): --schema given again, in
# either order, read as one schema; --policies a directory (its .cedar and
# .charter files, sorted) or - (standard input, once); --policies given again.
case_inputs_policies_and_schemas() {
  run check --policies examples/webhook/policies.cedar --schema stdlib/governance.cedarschema \
    --schema stdlib/kubernetes.cedarschema
  expect_status 0
  run check --policies examples/webhook/policies.cedar --schema stdlib/kubernetes.cedarschema \
    --schema stdlib/governance.cedarschema
  expect_status 0
  run check --policies examples/governance/
  expect_status 0
  stdin_from=$policies
  run authorize --policies - --entities "$entities" --request-json $golden/request-allow.json
  expect_status 0
  run authorize --policies - --policies - --entities "$entities" --request-json $golden/request-allow.json
  expect_errors
  stdin_from=""
  # A directory and a file in it: the same file twice.
  run build --policies "$ex" --policies "$policies" -o "$work/ex.bundle"
  expect_errors
  # No output over a file a directory input holds.
  cp "$policies" "$work/policies.cedar"
  run build --policies "$work" -o "$work/policies.cedar"
  expect_errors
  # Nor a decision log appended to an input of the server.
  run serve --policies "$work" --tls-cert "$work/no-cert.pem" --tls-key "$work/no-key.pem" \
    --decision-log "$work/policies.cedar"
  expect_errors
  cmp -s "$policies" "$work/policies.cedar" || fail "the input was overwritten"
  rm "$work/policies.cedar"
  # A repeatable option takes one value an occurrence: FILE stays admit's.
  run admit --policies "$ex" --policies examples/webhook/policies.cedar --schema stdlib/governance.cedarschema \
    --schema stdlib/kubernetes.cedarschema --entities examples/webhook/entities.json examples/webhook/objects/job.yaml
  expect_status 0
  run query --policies "$ex" --entities "$entities" --principal 'Governance::Member::"alice"' \
    --action 'Governance::Action::"viewTask"' --resource-type Governance::Task
  expect_status 0
  expect_no_files
}

# A project file (issue 31, point 3): inside a directory with a
# charter.json (or below it), check, test and build run with no flags; a
# flag replaces the file's value; build without an output is refused.
case_project_file() {
  cd examples/governance || return
  note "in examples/governance"
  run check
  expect_status 0
  run test
  expect_status 0
  cd ../webhook || return
  note "in examples/webhook"
  run check
  expect_status 0
  cd "$root" || return
  mkdir -p "$work/proj/sub"
  cp "$policies" "$work/proj/"
  printf '{"policies": "policies.cedar", "schemas": ["%s/stdlib/governance.cedarschema"]}\n' "$root" \
    >"$work/proj/charter.json"
  cd "$work/proj/sub" || return
  note "in <tmp>/proj/sub, below <tmp>/proj/charter.json"
  run check
  expect_status 0
  run build
  expect_errors
  run build -o ../out.chb
  expect_status 0
  printf '{"policy": "policies.cedar"}\n' >"$work/proj/charter.json"
  run check
  expect_errors
  cd "$root" || return
  rm -r "$work/proj"
  expect_no_files
}

# What -o and the other writers in place keep (issue 32): onto a dangling
# symlink, the file it names is written and the link stays; a file keeps its
# owner, group and mode (as root, another user's file); a file with a second
# hard link is refused rather than split, by `build -o` and `audit record`
# alike (they share one writer); no temporary file is left.
case_outputs_keep_links_and_owners() {
  mkdir "$work/built"
  ln -s built/governance.bundle "$work/current.bundle"
  run build --policies "$policies" -o "$work/current.bundle"
  expect_status 0
  [[ -L "$work/current.bundle" && "$(readlink "$work/current.bundle")" == built/governance.bundle ]] ||
    fail "the dangling symlink was replaced"
  capture authorize --bundle "$work/built/governance.bundle" --entities "$entities" --requests "$requests"
  expect_status 0
  local bundle="$work/built/governance.bundle" owner
  if [[ $(id -u) -eq 0 ]]; then chown 4242:4343 "$bundle" "$work/built"; fi
  chmod 640 "$bundle"
  owner=$(stat -c '%u:%g %a' "$bundle")
  run build --policies "$policies" -o "$work/current.bundle"
  expect_status 0
  [[ $(stat -c '%u:%g %a' "$bundle") == "$owner" ]] || fail "the bundle's owner or mode changed: $(stat -c '%u:%g %a' "$bundle")"
  cp "$entities" "$work/entities.json"
  if [[ $(id -u) -eq 0 ]]; then chown 4242:4343 "$work/entities.json"; fi
  owner=$(stat -c '%u:%g %a' "$work/entities.json")
  run audit record --entities "$work/entities.json" --connection speech/gpu-east --decision keep --by gina \
    --at 2026-01-15 --next 2027-01-15
  expect_status 0
  [[ $(stat -c '%u:%g %a' "$work/entities.json") == "$owner" ]] || fail "audit record changed the file's owner or mode"
  ln "$bundle" "$work/second-name.bundle"
  run build --policies "$policies" -o "$work/current.bundle"
  expect_errors
  [[ $(stat -c %h "$bundle") -eq 2 ]] || fail "the hard links were split"
  ln "$work/entities.json" "$work/entities-link.json"
  cp "$work/entities.json" "$tmp/before.json"
  run audit record --entities "$work/entities.json" --connection robotics/slurm-west --decision revoke --by hana \
    --at 2026-01-16
  expect_errors
  cmp -s "$tmp/before.json" "$work/entities-link.json" || fail "the refused record changed the file"
  [[ -z "$(find "$work" -name '*charter-tmp*')" ]] || fail "a temporary file was left: $(find "$work" -name '*charter-tmp*')"
}

# Policy ids with a newline, ESC and BEL (written with Cedar's escapes): the
# text output and the warnings show them escaped, one line a request and no
# raw control byte; JSON Lines keeps one object a line.
case_control_bytes_in_ids() {
  local p=$golden/control-ids.cedar
  printf '[%s, %s]' "$(cat $golden/request-allow.json)" "$(cat $golden/request-deny.json)" >"$work/two.json"
  run authorize --policies $p --entities "$entities" --requests "$work/two.json"
  expect_status 0
  [[ $(wc -l <"$stdout_file") -eq 2 ]] || fail "a request's line was split"
  run authorize --policies $p --entities "$entities" --request-json $golden/request-allow.json
  expect_status 0
  [[ $(wc -l <"$stderr_file") -eq 1 ]] || fail "the warning was split"
  run authorize --policies $p --entities "$entities" --requests "$work/two.json" --format jsonl
  expect_status 0
  [[ $(wc -l <"$stdout_file") -eq 2 ]] || fail "a JSON line was split"
  expect_no_raw_controls
  rm "$work/two.json"
}

# Fails if the transcript holds a raw control byte but tab and newline, NUL
# included (grep -P: a bash pattern cannot hold a NUL).
expect_no_raw_controls() {
  if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]' "$transcript"; then fail "a raw control byte was printed"; fi
}

# Names with control bytes (tests/cli/golden/control-names.*): a NUL and ESC
# in policy ids, ESC in attribute names (in the policies and the entities),
# in a test case's name and in an entity id, through every report that names
# them: authorize (text, warnings, JSON Lines), explain, disasm, test and the
# REPL's decisions, errors and explanations. None reaches the output raw.
case_control_bytes_in_names() {
  local base=$golden/control-names
  run authorize --policies $base.cedar --entities $base-entities.json --request-json $base-request.json
  expect_status 2
  [[ $(wc -l <"$stderr_file") -eq 1 ]] || fail "the warning was split"
  run authorize --policies $base.cedar --entities $base-entities.json --request-json $base-request.json \
    --format jsonl
  expect_status 2
  [[ $(wc -l <"$stdout_file") -eq 1 ]] || fail "a JSON line was split"
  run explain --policies $base.cedar --entities $base-entities.json --request-json $base-request.json
  expect_status 2
  run disasm --policies $base.cedar
  expect_status 0
  run test $base.test.json
  expect_status 1
  status=0
  "$charter_bin" repl --policies $base.cedar --entities $base-entities.json <$base-repl.txt \
    >"$stdout_file" 2>"$stderr_file" || status=$?
  {
    echo "\$ charter repl --policies $base.cedar --entities $base-entities.json < $base-repl.txt"
    section stdout "$stdout_file"
    section stderr "$stderr_file"
    echo "--- exit $status"
  } >>"$transcript"
  expect_status 0
  grep -q '^DENY$' "$stdout_file" || fail "the REPL did not decide"
  expect_no_raw_controls
}

# A failed build leaves the previous bundle as it was.
case_build_failure_keeps_old_bundle() {
  local bundle="$work/governance.bundle"
  "$charter_bin" build --policies "$policies" -o "$bundle" || fail "cannot build a bundle"
  cp "$bundle" "$tmp/before"
  run build --policies $golden/bad-policy.cedar -o "$bundle"
  expect_errors
  cmp -s "$tmp/before" "$bundle" || fail "the old bundle changed"
  [[ $(find "$work" -mindepth 1 | wc -l) -eq 1 ]] || fail "build left other files behind"
}

# ---- bench ------------------------------------------------------------------
# Timings cannot be golden: the JSON output's shape is checked by
# bench_shape.js, the text output's lines by name; the transcript holds only
# what is deterministic (the errors).

case_bench_output_shape() {
  local n source
  n=$(grep -c '"description"' "$requests")
  "$charter_bin" build --policies "$policies" -o "$tmp/governance.bundle" || fail "cannot build a bundle"
  for source in "--policies $policies" "--bundle $tmp/governance.bundle"; do
    # shellcheck disable=SC2086  # two words on purpose
    capture bench $source --entities "$entities" --requests "$requests" --iterations 3 --format json
    expect_status 0
    expect_no_stderr
    node tests/cli/bench_shape.js "$n" 3 <"$stdout_file" >/dev/null || fail "bad JSON shape (${source%% *})"
    note "bench ${source%% *} --format json: $(node tests/cli/bench_shape.js "$n" 3 <"$stdout_file")"
  done
  capture bench --policies "$policies" --entities "$entities" --requests "$requests" --iterations 2
  expect_status 0
  expect_no_stderr
  local line
  for line in policies entities requests iterations ns/request latency load; do
    grep -q "^$line  *[0-9a-z]" "$stdout_file" || fail "no \`$line\` line in the text output"
  done
  note "bench (text): $(cut -d' ' -f1 "$stdout_file" | tr '\n' ' ')"
}

case_bench_bad_input() {
  run bench --policies "$policies" --entities "$entities"
  expect_errors
  run bench --entities "$entities" --requests "$requests"
  expect_errors
  run bench --policies "$policies" --bundle "$policies" --entities "$entities" --requests "$requests"
  expect_errors
  run bench --policies "$policies" --entities "$entities" --requests "$requests" --format jsonl
  expect_errors
  run bench --policies "$policies" --entities "$entities" --requests "$requests" --iterations 0
  expect_errors
  run bench --policies "$policies" --entities "$entities" --requests "$requests" --iterations many
  expect_errors
  run bench --policies "$policies" --entities $golden/no-such-entities.json --requests "$requests"
  expect_errors
  run bench --policies "$policies" --entities $golden/bad-entities.json --requests "$requests"
  expect_errors
  run bench --policies "$policies" --entities "$entities" --requests $golden/request-allow.json
  expect_errors
  echo '[]' >"$work/empty.json"
  run bench --policies "$policies" --entities "$entities" --requests "$work/empty.json"
  expect_errors
  head -c 8 "$policies" >"$work/header.bundle"
  run bench --bundle "$work/header.bundle" --entities "$entities" --requests "$requests"
  expect_errors
  run bench --policies $golden/bad-policy.cedar --entities $golden/bad-entities.json \
    --requests $golden/bad-request.json
  expect_errors 3
}

# The policy author's commands.
source tests/cli/golden_authoring.sh
# ---- explain ----------------------------------------------------------------

explain_one() {  # REQUEST-FILE FORMAT
  run explain --policies "$policies" --entities "$entities" --request-json "$1" --format "$2"
}

case_explain_allow_text() {
  explain_one $golden/request-allow.json text
  expect_status 0
  expect_no_stderr
  grep -q '^ALLOW: permitted by `teams-view-their-tasks`$' "$stdout_file" || fail "no ALLOW line"
}

case_explain_forbid_text() {
  explain_one $golden/request-forbid.json text
  expect_status 2
  expect_no_stderr
  grep -q '^DENY: forbidden by `submit-only-approved-data-classifications`$' "$stdout_file" || fail "no DENY line"
}

case_explain_error_text() {
  explain_one $golden/request-errs.json text
  expect_status 2
  expect_no_stderr
  grep -q '^permit `owners-cancel-own-tasks` was skipped' "$stdout_file" || fail "the erring policy is not explained"
}

case_explain_json() {
  explain_one $golden/request-forbid.json json
  expect_status 2
  expect_no_stderr
  [[ $(wc -l <"$stdout_file") -eq 1 ]] || fail "not one line"
  # The decision part is `authorize --format json`'s object.
  capture authorize --policies "$policies" --entities "$entities" \
    --request-json $golden/request-forbid.json --format json
  local decision
  decision=$(sed -e 's/}$//' "$stdout_file")
  explain_one $golden/request-forbid.json json
  [[ "$(head -c ${#decision} "$stdout_file")" == "$decision" ]] ||
    fail "the decision differs from authorize's"
}

# Explain decides as authorize does, on every request of the example.
case_explain_agrees_with_authorize() {
  local n i
  n=$(grep -c '"description"' "$requests")
  note "explain and authorize agree on all $n requests of $requests"
  capture authorize --policies "$policies" --entities "$entities" --requests "$requests" --format jsonl
  # Explain's decision object gives no positions of evaluation errors.
  sed -e 's/,"begin":[0-9]*,"end":[0-9]*,"line":[0-9]*,"column":[0-9]*}/}/g' "$stdout_file" >"$tmp/authorize"
  for ((i = 0; i < n; i++)); do
    node -e 'const r = require(process.argv[1])[+process.argv[2]]; process.stdout.write(JSON.stringify(r));' \
      "$root/$requests" "$i" >"$tmp/request.json" || fail "node cannot read $requests"
    capture explain --policies "$policies" --entities "$entities" --request-json "$tmp/request.json" \
      --format json
    [[ $status -eq 0 || $status -eq 2 ]] || fail "request $i: exit $status"
    local expected
    expected=$(sed -n "$((i + 1))p" "$tmp/authorize" | sed -e 's/}$//')
    [[ "$(head -c ${#expected} "$stdout_file")" == "$expected" ]] || fail "request $i decided differently"
  done
}

# Several policy files are one policy set: a forbid in the second file
# overrides a permit of the first, and each policy's lines are shown from
# its own file (its `source` in JSON: the index of its file).
case_explain_several_files() {
  printf '%s\n' '@id("alice-on-leave")' \
    'forbid (principal == Governance::Member::"alice", action, resource);' >"$work/on-leave.cedar"
  run explain --policies "$policies" --policies "$work/on-leave.cedar" --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_status 2
  expect_no_stderr
  grep -q '^DENY: forbidden by `alice-on-leave`$' "$stdout_file" || fail "no DENY line"
  grep -q -- "--> $work/on-leave.cedar:2:1" "$stdout_file" || fail "the forbid's place is not in its own file"
  grep -q -- "--> $policies:" "$stdout_file" || fail "the first file's policies are not shown from it"
  run explain --policies "$policies" --policies "$work/on-leave.cedar" --entities "$entities" \
    --request-json $golden/request-allow.json --format json
  expect_status 2
  node -e '
    const e = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const p = e.policies.find((p) => p.id === "alice-on-leave");
    if (!p || p.source !== 1 || !p.determining) process.exit(1);
    if (e.policies.filter((p) => p.source === 0).length < 10) process.exit(1);
  ' "$stdout_file" || fail "the JSON does not say each policy's source"
  # An id taken twice: the error is in the second file.
  printf '%s\n' '@id("teams-view-their-tasks")' 'permit (principal, action, resource);' >"$work/again.cedar"
  run explain --policies "$policies" --policies "$work/again.cedar" --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_errors
}

case_explain_bad_input() {
  run explain --policies $golden/no-such-policies.cedar --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_errors
  run explain --policies $golden/bad-policy.cedar --entities "$entities" \
    --request-json $golden/request-allow.json
  expect_errors
  run explain --policies "$policies" --entities $golden/bad-entities.json \
    --request-json $golden/request-allow.json
  expect_errors
  run explain --policies "$policies" --entities "$entities" --request-json $golden/bad-request.json
  expect_errors
  run explain --policies "$policies" --entities "$entities" --request-json "$requests"
  expect_errors
  run explain --policies $golden/bad-policy.cedar --entities $golden/bad-entities.json \
    --request-json $golden/bad-request.json
  expect_errors 3
  run explain --policies "$policies" --entities "$entities"
  expect_errors
  run explain --policies "$policies" --entities "$entities" \
    --request-json $golden/request-allow.json --format yaml
  expect_errors
  run explain --policies "$policies" --entities "$entities" \
    --request-json $golden/request-allow.json --frobnicate
  expect_errors
  run explain --help
  expect_status 0
  expect_no_stderr
}

# ---- disasm -------------------------------------------------------------------

case_disasm_policies() {
  run disasm --policies "$policies"
  expect_status 0
  expect_no_stderr
  grep -q '^policy create-projects-from-own-profiles (permit, [0-9]* registers)$' "$stdout_file" ||
    fail "no listing of the first policy"
}

case_disasm_bundle() {
  local bundle="$work/governance.bundle"
  "$charter_bin" build --policies "$policies" -o "$bundle" || fail "cannot build a bundle"
  capture disasm --policies "$policies"
  grep -v '^    ; [0-9]* | ' "$stdout_file" >"$tmp/from-policies"
  [[ $(wc -l <"$tmp/from-policies") -lt $(wc -l <"$stdout_file") ]] || fail "no source lines"
  capture disasm "$bundle"
  expect_status 0
  expect_no_stderr
  cmp -s "$tmp/from-policies" "$stdout_file" || fail "the bundle disassembles differently"
  note "disasm of the bundle is disasm --policies without its source lines (pinned by disasm_policies)"
}

case_disasm_bad_input() {
  local good="$tmp/good.bundle" size
  "$charter_bin" build --policies "$policies" -o "$good" || fail "cannot build a bundle"
  size=$(wc -c <"$good")
  head -c $((size / 2)) "$good" >"$work/truncated.bundle"
  run disasm "$work/truncated.bundle"
  expect_errors
  bytes disasm 4096 >"$work/random.bundle"
  run disasm "$work/random.bundle"
  expect_errors
  run disasm "$policies"
  expect_errors
  run disasm $golden/no-such.bundle
  expect_errors
  run disasm --policies $golden/bad-policy.cedar
  expect_errors
  run disasm
  expect_errors
  cp "$good" "$work/good.bundle"
  run disasm "$work/good.bundle" --policies "$policies"
  expect_errors
  rm -f "$work"/*.bundle
  run disasm --help
  expect_status 0
  expect_no_stderr
}

# ---- scheduling ------------------------------------------------------------

case_schedule_text() {
  run schedule --state $golden/schedule-state.json
  expect_status 0
  expect_no_stderr
}

case_schedule_json() {
  run schedule --state $golden/schedule-state.json --format json
  expect_status 0
  expect_no_stderr
  [[ $(wc -l <"$stdout_file") -eq 1 ]] || fail "not one line"
}

case_simulate_until_stable() {
  run simulate --state $golden/schedule-state.json
  expect_status 0
  expect_no_stderr
  run simulate --state $golden/schedule-state.json --cycles 2
  expect_status 0
  expect_no_stderr
}

# --summary: a line (an object) a cycle; -o: the final state, in the form
# --state reads, so that runs chain; and no output over an input (simulate,
# import, export).
case_simulate_summary() {
  run simulate --state $golden/schedule-state.json --summary
  expect_status 0
  expect_no_stderr
  run simulate --state $golden/schedule-state.json --summary --format json
  expect_status 0
  jq -e 'type == "array" and length >= 1 and all(.[]; has("cycle") and has("admitted_total") and has("pending_total"))' \
    "$stdout_file" >/dev/null || fail "--summary --format json: not an array of cycle objects"
  run simulate --state $golden/schedule-state.json --summary -o "$work/final.json"
  expect_status 0
  expect_no_stderr
  local final_admitted
  final_admitted=$(sed -n 's/^== after .*: \([0-9]*\) admitted.*/\1/p' "$stdout_file")
  run schedule --state "$work/final.json" --format json
  expect_status 0
  run simulate --state "$work/final.json" --summary
  expect_status 0
  grep -q "^== after 1 cycle: $final_admitted admitted" "$stdout_file" ||
    fail "the final state does not start where the run ended ($final_admitted admitted)"
  cp $golden/schedule-state.json "$work/state.json"
  run simulate --state "$work/state.json" -o "$work/state.json"
  expect_errors
  run export kueue --state "$work/state.json" -o "$work/state.json"
  expect_errors
  cmp -s "$work/state.json" $golden/schedule-state.json || fail "an input was written over"
  cp tests/schedule/kueue/testdata/cluster.yaml "$work/cluster.yaml"
  ln -s "$work/cluster.yaml" "$work/link.yaml"
  run import kueue "$work/cluster.yaml" -o "$work/link.yaml"
  expect_errors
  cmp -s "$work/cluster.yaml" tests/schedule/kueue/testdata/cluster.yaml || fail "an input was written over"
  rm -f "$work/final.json" "$work/state.json" "$work/cluster.yaml" "$work/link.yaml"
}

# --fail-on-pending: the same output, and exit 2 naming what stays pending
# (after one cycle: what it did not admit, and what it preempted; after a
# simulation: the final state's); exit 0 when nothing does.
case_schedule_fail_on_pending() {
  run schedule --state $golden/schedule-state.json --fail-on-pending
  expect_status 2
  run simulate --state $golden/schedule-state.json --fail-on-pending
  expect_status 2
  run simulate --state $golden/schedule-state.json --cycles 1 --fail-on-pending --format json
  expect_status 2
  run schedule --state $golden/schedule-state-fits.json --fail-on-pending
  expect_status 0
  expect_no_stderr
  run simulate --state $golden/schedule-state-fits.json --fail-on-pending
  expect_status 0
  expect_no_stderr
}

# The configuration from .charter declarations, compiled into a bundle or on
# the fly, and the workloads of the moment: the same cycle either way.
case_schedule_declarations() {
  local bundle="$work/decl.bundle"
  run build --policies $golden/schedule-decl.charter --policies "$policies" -o "$bundle"
  expect_status 0
  expect_no_stderr
  run schedule --bundle "$bundle" --workloads $golden/schedule-workloads.json
  expect_status 0
  expect_no_stderr
  cp "$stdout_file" "$tmp/from-bundle"
  run schedule --policies $golden/schedule-decl.charter --workloads $golden/schedule-workloads.json
  expect_status 0
  cmp -s "$tmp/from-bundle" "$stdout_file" || fail "--policies schedules differently from --bundle"
  run simulate --policies $golden/schedule-decl.charter --workloads $golden/schedule-workloads.json --format json
  expect_status 0
  rm -f "$bundle"
}

case_schedule_declarations_bad_input() {
  run build --policies $golden/bad-decl.charter -o "$work/bad.bundle"
  expect_errors
  grep -q 'bad-decl.charter:2:21: ' "$stderr_file" || fail "no file:line:col"
  run schedule --policies $golden/bad-decl.charter --workloads $golden/schedule-workloads.json
  expect_errors
  grep -q 'bad-decl.charter:2:21: ' "$stderr_file" || fail "no file:line:col"
  run schedule --policies "$policies" --workloads $golden/schedule-workloads.json
  expect_errors
  run schedule --policies $golden/schedule-decl.charter
  expect_errors
  run schedule --state $golden/schedule-state.json --workloads $golden/schedule-workloads.json
  expect_errors
  run schedule --policies $golden/schedule-decl.charter --workloads $golden/bad-entities.json
  expect_errors
  expect_no_files
}

# The governance example's scheduling.charter compiles with its policies into
# one bundle, which still decides the requests and schedules its queues.
case_governance_scheduling() {
  local bundle="$work/governance.bundle"
  run build --policies "$policies" --policies $ex/scheduling.charter -o "$bundle"
  expect_status 0
  expect_no_stderr
  run authorize --bundle "$bundle" --entities "$entities" --request-json $golden/request-allow.json
  expect_status 0
  run schedule --bundle "$bundle" --workloads $golden/governance-workloads.json
  expect_status 0
  expect_no_stderr
  grep -q '^ADMIT    pretrain (gpu-east-nlp-pretrain)' "$stdout_file" || fail "pretrain not admitted"
  rm -f "$bundle"
}

# The governance example's queues agree with the Allocations they implement;
# a copy whose quotas contradict them fails `check --entities` (and `audit
# --policies`) with both positions: the .charter text and the entity's line.
case_queues_agree_with_allocations() {
  run check --policies $ex/scheduling.charter --entities "$entities" --schema stdlib/governance.cedarschema
  expect_status 0
  expect_no_stderr
  sed -e 's|"nvidia.com/gpu": 32 borrow 16;|"nvidia.com/gpu": 16 borrow 16;|' \
      -e 's|"gres/gpu": 8 borrow 0 lend 0;|"gres/gpu": 8 lend 0;|' -e 's|fair_weight: 60;|fair_weight: 6;|' \
      $ex/scheduling.charter >"$work/s.charter"
  run check --policies "$work/s.charter" --entities "$entities"
  expect_status 1
  [[ $(grep -c 'error\[CH0810\]' "$stderr_file") -eq 3 ]] || fail "not three CH0810 errors"
  grep -q "^<tmp>/s.charter:40:46: .*guarantees 16 GPUs.*(examples/governance/entities.json:197:3) says 32" \
    <(sed -e "s|$work|<tmp>|g" "$stderr_file") || fail "no positions on both sides"
  capture audit --entities "$entities" --at 2026-01-01 --policies "$work/s.charter"
  expect_status 1
  [[ $(grep -c 'error\[CH0810\]' "$stderr_file") -eq 3 ]] || fail "audit: not three CH0810 errors"
  grep -q '^audit of ' "$stdout_file" || fail "audit: no report"
  capture audit --entities "$entities" --at 2026-01-01 --policies $ex/scheduling.charter
  expect_status 0
  run check --policies $ex/scheduling.charter --entities $golden/no-such-entities.json
  expect_errors
  run check --policies $ex/scheduling.charter --entities $golden/bad-entities.json
  expect_errors
  rm -f "$work/s.charter"
}

# The scheduling declarations checked as a whole (docs/scheduling.md,
# "Checks of the whole configuration"): one fixture a fault. Nominal quotas
# above a flavor's capacity are an error (check and build exit 1); a
# borrowing limit the tree cannot fill, mixed units and a lending limit no
# queue can borrow from are warnings (exit 0, the file "ok (N warnings)",
# build writes the bundle). The governance example has none of them.
case_scheduling_checked_as_a_whole() {
  local f
  run check --policies $golden/whole-capacity.charter
  expect_status 1
  grep -q '^tests/cli/golden/whole-capacity.charter:5:23: error\[CH0811\]' "$stderr_file" || fail "no CH0811 at 5:23"
  run build --policies $golden/whole-capacity.charter -o "$work/b.bundle"
  expect_errors
  for f in borrow units lend; do
    run check --policies $golden/whole-$f.charter
    expect_status 0
    grep -q "^tests/cli/golden/whole-$f.charter: ok (" "$stdout_file" || fail "$f: not ok with warnings"
  done
  run build --policies $golden/whole-borrow.charter -o "$work/b.bundle"
  expect_status 0
  [[ -s "$work/b.bundle" ]] || fail "build with a warning wrote no bundle"
  rm -f "$work/b.bundle"
  capture check --policies $ex/scheduling.charter
  expect_status 0
  expect_no_stderr
  # The capacity clause is in canonical layout, and `fmt` keeps it.
  run fmt --check $golden/whole-capacity.charter
  expect_status 0
}

case_schedule_bad_state() {
  run schedule --state $golden/bad-schedule-state.json
  expect_errors
  grep -q 'bad-schedule-state.json:[0-9]*:[0-9]*: ' "$stderr_file" || fail "no line:col"
  run schedule --state $golden/no-such-state.json
  expect_errors
  run schedule --state $golden/bad-entities.json
  expect_errors
  run simulate --state $golden/schedule-state.json --cycles 0
  expect_errors
  run schedule
  expect_errors
}

# ---- Kueue's objects (tests/schedule/kueue/testdata) -----------------------

kueue_data=tests/schedule/kueue/testdata

case_import_export_kueue() {
  # Kueue's objects as .charter declarations (stdout), through a bundle and
  # back out as Kueue's objects; the state JSON of --format state for a cycle.
  run import kueue $kueue_data/cluster.yaml
  expect_status 0
  run import kueue $kueue_data/cluster.yaml -o "$work/k.charter"
  expect_status 0
  run build --policies "$work/k.charter" -o "$work/k.bundle"
  expect_status 0
  run export kueue --bundle "$work/k.bundle" --api-version v1beta1
  expect_status 0
  run import kueue $kueue_data/cluster.yaml --format state -o "$work/state.json"
  expect_status 0
  [[ -s "$work/state.json" ]] || fail "no state written"
  run schedule --state "$work/state.json" --workloads $kueue_data/workloads.yaml --now 2026-03-01T10:10:00Z
  expect_status 0
  run import hyperpod tests/schedule/hyperpod/hyperpod-walkthrough.json
  expect_status 0
  run import hyperpod tests/schedule/hyperpod/hyperpod-walkthrough.json --format state -o "$work/hyperpod.json"
  expect_status 0
  expect_no_stderr
  run export hyperpod --state "$work/hyperpod.json" --cluster-arn arn:aws:sagemaker:us-west-2:111122223333:cluster/demo
  expect_status 0
}

case_import_export_bad_input() {
  printf 'apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\nspec: {cohort: x}\n' \
    >"$work/bad.yaml"
  run import kueue "$work/bad.yaml" -o "$work/out.json"
  expect_errors
  run import kueue $golden/no-such-file.yaml
  expect_errors
  run import kueue $golden/bad-entities.json
  expect_errors
  run import hyperpod tests/schedule/hyperpod/hyperpod-walkthrough.json tests/schedule/hyperpod/hyperpod-walkthrough.json
  expect_errors
  run import
  expect_errors
  run export kueue --state $golden/bad-schedule-state.json
  expect_errors
  run export kueue --state $golden/schedule-state.json --api-version v1
  expect_errors
  run import kueue $kueue_data/cluster.yaml -o "$work/missing/dir/out.charter"
  expect_status 1
  run schedule --state $golden/schedule-state.json --workloads $kueue_data/workloads.yaml --now yesterday
  expect_errors
  # export: exactly one of --bundle, --policies and --state; -o never an input.
  run export kueue
  expect_errors
  run export kueue --bundle "$work/k.bundle" --policies examples/governance/scheduling.charter
  expect_errors
  run export hyperpod --state $golden/schedule-state.json --policies examples/governance/scheduling.charter
  expect_errors
  run export kueue --policies examples/governance/policies.cedar
  expect_errors
  run export kueue --policies examples/governance/scheduling.charter --scenario x
  expect_errors
  cp examples/governance/scheduling.charter "$work/s.charter"
  run export kueue --policies "$work/s.charter" -o "$work/s.charter"
  expect_errors
  cmp -s examples/governance/scheduling.charter "$work/s.charter" || fail "export overwrote its input"
  run import kueue $kueue_data/cluster.yaml --format yaml
  expect_errors
  rm -f "$work/bad.yaml" "$work/s.charter"
  expect_no_files
}

# ---- governance reviews: charter access, charter audit ---------------------

case_access_governance() {
  # Every finding kind of `charter access` at least once over the example:
  # identity-owner-suspended, outside-member, workload-identity-held-back
  # (vision/gpu-east); foreign-identity, identity-owner-gone, nobody
  # (speech/slurm-west); workload-identity-lifecycle and suspended-member
  # under a policy set without the model's guards, where a permit that errs
  # on identities is named under each row it erred on.
  run access --policies "$policies" --entities "$entities" --connection vision/gpu-east --at 2026-01-15
  expect_status 0
  expect_no_stderr
  run access --policies "$policies" --entities "$entities" \
    --connection 'Governance::Connection::"speech/slurm-west"' --at 2026-01-15
  expect_status 0
  run access --policies $golden/access-weak-policies.cedar --entities "$entities" \
    --connection vision/gpu-east --at 2026-01-15
  expect_status 0
  local kind
  for kind in identity-owner-suspended outside-member workload-identity-held-back foreign-identity \
    identity-owner-gone nobody workload-identity-lifecycle suspended-member; do
    grep -q "  $kind: " "$transcript" || fail "no $kind finding"
  done
  grep -q '^    erring: active-members-view-tasks$' "$transcript" || fail "no erring policy named"
  # An action whose context needs what the review cannot fill (a String) is
  # named as not reviewed: the standard schema with a `ticket` added to
  # usePriorityClass's context.
  sed 's/context: { namespace: Namespace }/context: { namespace: Namespace, ticket: String }/' \
    stdlib/governance.cedarschema >"$work/ticket.cedarschema"
  cmp -s stdlib/governance.cedarschema "$work/ticket.cedarschema" && fail "the schema edit did not apply"
  note "access --policies $policies --schema <the standard schema, usePriorityClass needing a String ticket> --entities $entities --connection robotics/gpu-east --at 2026-01-15 | grep 'not reviewed'"
  capture access --policies "$policies" --schema "$work/ticket.cedarschema" --entities "$entities" \
    --connection robotics/gpu-east --at 2026-01-15
  expect_status 0
  grep '^  not reviewed: ' "$stdout_file" >>"$transcript" || fail "usePriorityClass is not named as not reviewed"
  rm -f "$work/ticket.cedarschema"
}

case_access_formats() {
  run access --policies "$policies" --entities "$entities" --connection robotics/gpu-east --at 2026-01-15 --format dot
  expect_status 0
  expect_no_stderr
  # Graphviz (scripts/deps.sh installs it) renders the graph, or the test fails.
  command -v dot >/dev/null || fail "Graphviz's dot is missing (scripts/deps.sh installs graphviz)"
  dot -Tsvg "$stdout_file" >"$tmp/access.svg" || fail "Graphviz cannot render the graph"
  grep -q '<svg' "$tmp/access.svg" || fail "Graphviz wrote no SVG"
  # --format svg: Charter's own picture of the same graph (nodes, memberships,
  # grants and their actions as the dot graph has them), with its legend;
  # the principals the findings name in red.
  "$charter_bin" access --policies "$policies" --entities "$entities" --connection vision/gpu-east --at 2026-01-15 \
    --format dot >"$tmp/access.dot" || fail "access --format dot"
  "$charter_bin" access --policies "$policies" --entities "$entities" --connection vision/gpu-east --at 2026-01-15 \
    --format json >"$tmp/access.json" || fail "access --format json"
  capture access --policies "$policies" --entities "$entities" --connection vision/gpu-east --at 2026-01-15 --format svg
  expect_status 0
  expect_no_stderr
  python3 - "$stdout_file" "$tmp/access.dot" "$tmp/access.json" <<'PY' || fail "access --format svg does not draw the graph"
import json, re, sys
import xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
svg = ET.parse(sys.argv[1]).getroot()
dot = open(sys.argv[2]).read()
report = json.load(open(sys.argv[3]))
unq = lambda s: s.replace('\\"', '"')
q = r'"((?:[^"\\]|\\.)*)"'
dot_nodes = {unq(m) for m in re.findall(r"^  " + q + r" \[shape=", dot, re.M)}
dot_members = {(unq(a), unq(b)) for a, b in re.findall(r"^  " + q + " -> " + q + r" \[style=dashed", dot, re.M)}
dot_grants = {(unq(a), unq(b)): unq(l) for a, b, l in re.findall(r"^  " + q + " -> " + q + r" \[label=" + q, dot, re.M)}
groups = [g for g in svg.iter(S + "g")]
nodes = {g.get("data-name"): g.get("class") for g in groups if (g.get("class") or "").startswith("node")}
assert set(nodes) == dot_nodes, (sorted(nodes), sorted(dot_nodes))
members = {(p.get("data-from"), p.get("data-to")) for p in svg.iter(S + "path") if p.get("class") == "member"}
assert members == dot_members, (members, dot_members)
grants = {(g.get("data-from"), g.get("data-to")): g.get("data-actions") for g in groups if g.get("class") == "grant"}
assert grants == dot_grants, (grants, dot_grants)
short = lambda u: u["type"].split("::")[-1] + '::"' + u["id"] + '"'
named = {short(f["principal"]) for f in report["findings"] if f.get("principal")}
flagged = {n for n, c in nodes.items() if "flagged" in c}
assert flagged == named & set(nodes) and flagged, (flagged, named)
assert nodes['Member::"dave"'] == "node principal flagged" and nodes['Team::"vision-research"'] == "node group"
legend = " ".join(t.text or "" for g in groups if g.get("class") == "legend" for t in g.iter(S + "text"))
for word in ["principal", "group it is in", "what the connection reaches", "member of", "allowed, with the actions",
             "named by a finding"]:
    assert word in legend, (word, legend)
findings = [g for g in groups if g.get("class") == "finding"]
assert len(findings) == len(report["findings"]), (len(findings), len(report["findings"]))
PY
  capture access --policies "$policies" --entities "$entities" --connection robotics/gpu-east --at 2026-01-15 --format json
  expect_status 0
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["connection"]=={"type":"Governance::Connection","id":"robotics/gpu-east"}, r["connection"]' \
    "$stdout_file" || fail "the JSON does not parse or names another connection"
}

case_access_bad_input() {
  run access --policies "$policies" --entities "$entities" --connection nobody/nowhere --at 2026-01-15
  expect_status 1
  run access --policies "$policies" --entities "$entities" --connection vision/gpu-east --at 15/01/2026
  expect_status 1
  run access --policies "$policies" --entities "$entities" --connection 'Governance::Member::"ben"' --at 2026-01-15
  expect_status 1
}

case_audit_governance() {
  run audit --entities "$entities" --at 2026-01-15
  expect_status 0
  expect_no_stderr
  run audit --entities "$entities" --at 2026-01-15 --fail-on high --format json
  expect_status 3
}

case_audit_previous() {
  # Changes since an older snapshot (a project owner who left, the account of
  # a cluster, approved data classifications), reviews due within 200 days,
  # an organization's own rule, and rule files that are refused.
  run audit --entities "$entities" --previous $golden/audit-previous.json --at 2026-01-15 --within 200 \
    --rules $golden/audit-extra-rules.cedar
  expect_status 0
  expect_no_stderr
  local rule
  for rule in project-ownership-changed account-changed data-classifications-changed review-due no-alert-channel; do
    grep -q "  $rule: " "$stdout_file" || fail "no $rule finding"
  done
  run audit --entities "$entities" --at 2026-01-15 --rules $golden/audit-bad-rules.cedar
  expect_status 1
  run audit --entities "$entities" --previous $golden/failing.test.json --at 2026-01-15
  expect_status 1
  run audit --entities "$entities" --at yesterday
  expect_status 1
}

case_audit_later() {
  # The example three months on (tests/cli/golden/audit-later.json), audited
  # against the example as the previous snapshot: ben, vision's owner, left
  # Acme; gina is suspended; the robotics project was closed and its
  # connections stayed; nlp/gpu-east names a new cost owner, collects no more
  # logs, and its allocations grew or stopped lending; nlp/slurm-west lost
  # its nlp-pretrain namespace and approves no workload type; speech/gpu-east
  # gained a priority class; vision/gpu-central is new, to a cluster the
  # store does not have, and no namespace uses it. Every standard rule that
  # audit_governance and audit_previous do not show fires here, and
  # monitoring-reduced, an organization's rule over context.previousContract;
  # and one that errs on the connection only a namespace names.
  run audit --entities $golden/audit-later.json --previous "$entities" --at 2026-04-15 \
    --rules $golden/audit-extra-rules.cedar --rules $golden/audit-careless-rules.cedar
  expect_status 0
  expect_no_stderr
  local rule
  for rule in owners-departed owners-suspended project-gone cluster-gone unused no-approved-workloads \
    new-connection contract-owners-changed access-roles-changed allocation-changed capacity-changed \
    workload-types-changed scheduling-policy-changed namespaces-gone monitoring-reduced \
    cost-owner-is-business-owner; do
    grep -q "  $rule: " "$stdout_file" || fail "no $rule finding"
  done
  grep -A2 '^Connection::"vision/gpu-east-2024"' "$stdout_file" | grep -q '^  error  cost-owner-is-business-owner: ' ||
    fail "the rule that errs is not reported under the connection"
  # A project gone from the store does not move its owners into the access roles.
  grep -A4 '^Connection::"robotics/gpu-east"' "$stdout_file" | grep -q 'access-roles-changed' &&
    fail "robotics/gpu-east: the closed project's owners role counted as an access role"
  run audit --entities $golden/audit-later.json --previous "$entities" --at 2026-04-15 --format json --fail-on medium
  expect_status 3
}

case_audit_record_roundtrip() {
  # Record a keep, then the audit shows the connection reviewed and its
  # overdue review gone; a revoke puts it on the revoked state. Nothing else
  # in the file changes.
  cp "$entities" "$work/entities.json"
  run audit record --entities "$work/entities.json" --connection speech/gpu-east --decision keep --by gina \
    --note "renewed after the capacity review" --at 2026-01-15 --next 2027-01-15
  expect_status 0
  diff "$entities" "$work/entities.json" >>"$transcript"
  capture audit --entities "$work/entities.json" --at 2026-01-15
  grep -A2 '^Connection::"speech/gpu-east"' "$stdout_file" >>"$transcript"
  grep -A3 '^Connection::"speech/gpu-east"' "$stdout_file" | grep -q 'review-overdue' && fail "still overdue after keep"
  grep -A1 '^Connection::"speech/gpu-east"' "$stdout_file" | grep -q 'last reviewed 2026-01-15 by gina' ||
    fail "the audit does not show the review"
  run audit record --entities "$work/entities.json" --connection robotics/slurm-west --decision revoke --by hana \
    --at 2026-01-16
  expect_status 0
  capture audit --entities "$work/entities.json" --at 2026-01-16
  grep -A1 '^Connection::"robotics/slurm-west"' "$stdout_file" | grep -q 'revoked on 2026-01-16' ||
    fail "the audit does not show the revocation"
  # Bad input leaves the file untouched.
  cp "$work/entities.json" "$tmp/before.json"
  run audit record --entities "$work/entities.json" --connection nobody/nowhere --decision keep --by gina --at 2026-01-15
  expect_status 1
  run audit record --entities "$work/entities.json" --connection speech/gpu-east --decision keep --by mallory --at 2026-01-15
  expect_status 1
  run audit record --entities "$work/entities.json" --connection speech/gpu-east --decision keep --by gina --at 2026-13-01
  expect_status 1
  run audit record --entities "$work/entities.json" --connection speech/gpu-east --decision keep --by gina \
    --at 2026-01-15 --expect sha256:0000
  expect_status 1
  cmp -s "$tmp/before.json" "$work/entities.json" || fail "a refused record changed the file"
  [[ -z "$(ls "$work" | grep -v '^entities.json$')" ]] || fail "a temporary file was left: $(ls "$work")"
}

# ---- query and diff (issue 20) ------------------------------------------------

query_alice() {  # EXTRA ARGS...
  run query --policies "$policies" --entities "$entities" --principal 'Governance::Member::"alice"' \
    --action 'Governance::Action::"viewTask"' --resource-type Governance::Task "$@"
}

case_query_governance_list() {
  query_alice
  expect_status 0
  expect_no_stderr
  query_alice --format json
  expect_status 0
  expect_no_stderr
  run query --policies "$policies" --entities "$entities" --resource 'Governance::Task::"nlp-pretrain-7"' \
    --action 'Governance::Action::"cancelTask"' --principal-type Governance::Identity
  expect_status 0
  expect_no_stderr
}

case_query_governance_residual() {
  query_alice --residual
  expect_status 0
  expect_no_stderr
  query_alice --residual --format json
  expect_status 0
  expect_no_stderr
}

# Several policy files are one policy set for the residual too: a forbid in
# a second file (given through a directory and stdin as well) joins the
# condition.
case_query_residual_several_files() {
  mkdir -p "$work/more"
  printf '%s\n' '@id("no-archived-tasks")' \
    'forbid (principal, action, resource is Governance::Task) when { resource has archived };' \
    >"$work/more/archived.cedar"
  query_alice --residual --policies "$work/more"
  expect_status 0
  expect_no_stderr
  grep -q 'forbid no-archived-tasks: resource has archived' "$stdout_file" || fail "the second file's forbid is missing"
  grep -q 'permit teams-view-their-tasks' "$stdout_file" || fail "the first file's permit is missing"
  stdin_from="$work/more/archived.cedar"
  query_alice --residual --policies - --format json
  stdin_from=""
  expect_status 0
  grep -q '"id":"no-archived-tasks","effect":"forbid"' "$stdout_file" || fail "stdin's forbid is missing"
}

# Short names (issue 31, point 3): an id alone, a type's last name, an
# action's id, when the schema and entities make them unambiguous; else the
# candidates, or the nearest name.
case_query_short_names() {
  run query --policies "$policies" --entities "$entities" --schema stdlib/governance.cedarschema \
    --principal alice --action viewTask --resource-type Task
  expect_status 0
  run query --policies "$policies" --entities "$entities" --principal 'Member::"alice"' \
    --action 'Action::"viewTask"' --resource-type Governance::Task
  expect_status 0
  run query --policies "$policies" --entities "$entities" --resource slurm-west/nlp-eval --action viewTask \
    --principal-type Member
  expect_errors
  run query --policies "$policies" --entities "$entities" --schema stdlib/governance.cedarschema \
    --principal alice --action viewTask --resource-type Tsak
  expect_errors
}

case_query_bad_input() {
  run query --policies "$policies" --entities "$entities" --principal 'Governance::Member::"alicia"' \
    --action 'Governance::Action::"viewTask"' --resource-type Governance::Task
  expect_errors
  run query --policies "$policies" --entities "$entities" --principal 'Governance::Member::"alice"' \
    --action 'Governance::Action::"viewTask"' --resource-type Governance::Taks
  expect_errors
  run query --policies "$policies" --entities "$entities" --principal 'alcie' \
    --action 'Governance::Action::"viewTask"' --resource-type Governance::Task
  expect_errors
  query_alice --context '{"mfa": }'
  expect_errors
  run query --policies "$policies" --entities "$entities" --principal 'Governance::Member::"alice"' \
    --action 'Governance::Action::"viewTask"'
  expect_errors
}

case_diff_governance_tightened() {
  sed 's/action in \[Governance::Action::"viewTask", Governance::Action::"cancelTask"\]/action == Governance::Action::"viewTask"/' \
    "$policies" >"$work/tightened.cedar"
  run diff --old "$policies" --new "$work/tightened.cedar" --entities "$entities" --requests "$requests"
  expect_status 0
  expect_no_stderr
  run diff --old "$policies" --new "$work/tightened.cedar" --entities "$entities" --requests "$requests" \
    --format json --fail-on-change
  expect_status 2
  expect_no_stderr
  run diff --old "$policies" --new "$policies" --entities "$entities" --requests "$requests" --fail-on-change
  expect_status 0
  printf '%s\n' '{"endpoint":"authorize","request":{"principal":"Governance::Member::\"alice\"","action":"Governance::Action::\"viewTask\"","resource":"Governance::Task::\"vision-train-17\""}}' \
    '{"endpoint":"authorize","request":{"principal":"Governance::Member::\"alice\"","action":7}}' >"$work/log.jsonl"
  run diff --old "$policies" --new "$work/tightened.cedar" --entities "$entities" --decision-log "$work/log.jsonl"
  expect_errors
  # Replayed lines: the old side must give the logged decision; the lines it
  # cannot replay are named with the reason and counted apart.
  local r17='"request":{"principal":"Governance::Identity::\"gpu-east/ops-admin\"","action":"Governance::Action::\"cancelTask\"","resource":"Governance::Task::\"nlp-pretrain-7\"","context":{}}'
  printf '%s\n' \
    "{\"endpoint\":\"authorize\",\"decision\":\"allow\",\"reasons\":[\"admins-oversee-cluster-tasks\"],\"errors\":[],$r17,\"entities\":[],\"masked\":[]}" \
    "{\"endpoint\":\"authorize\",\"decision\":\"deny\",\"reasons\":[],\"errors\":[],\"bundle\":\"sha256:0123\",$r17,\"entities\":[],\"masked\":[]}" \
    "{\"endpoint\":\"authorize\",$r17}" \
    '{"endpoint":"admission","decision":"deny","reasons":[],"errors":[{"policy":"(mapping)","message":"request.object.spec: the accelerators requested come to more than 2147483648"}],"request":null,"entities":null,"masked":[]}' \
    '{"endpoint":"admission","decision":"allow","reasons":[],"errors":[],"request":{"principal":"Governance::Member::\"alice\"","action":"Governance::Action::\"viewTask\"","resource":"Governance::Task::\"vision-train-17\""}}' \
    '{"endpoint":"authorize","decision":"allow","reasons":[],"errors":[],"request":{"principal":"Governance::Member::\"alice\"","action":"Governance::Action::\"viewTask\"","resource":"Governance::Task::\"vision-train-17\"","context":{"mfa":"***"}},"entities":[],"masked":["context.mfa"]}' \
    >"$work/replay.jsonl"
  run diff --old "$policies" --new "$work/tightened.cedar" --entities "$entities" --decision-log "$work/replay.jsonl"
  expect_status 0
  expect_no_stderr
  run diff --old "$policies" --new "$work/tightened.cedar" --entities "$entities" --decision-log "$work/replay.jsonl" \
    --format json --fail-on-change
  expect_status 2
  expect_no_stderr
}

# A typed bundle (built with --schema) decides only with the schema it was
# built with: authorize, query and diff refuse it given none or another one.
case_typed_bundle_schema() {
  local w=$work
  printf 'entity User;\nentity Doc;\naction view appliesTo { principal: User, resource: Doc };\n' >"$w/s.cedarschema"
  printf 'entity Extra;\n' >"$w/extra.cedarschema"
  cat "$w/s.cedarschema" "$w/extra.cedarschema" >"$w/other.cedarschema"
  printf 'permit (principal, action == Action::"view", resource);\n' >"$w/p.cedar"
  printf '[{"uid": {"type": "User", "id": "a"}, "attrs": {}, "parents": []}]\n' >"$w/e.json"
  printf '[{"principal": "User::\\"a\\"", "action": "Action::\\"view\\"", "resource": "Doc::\\"d\\""}]\n' >"$w/r.json"
  local query=(--principal 'User::"a"' --action 'Action::"view"' --resource-type Doc)
  capture build --policies "$w/p.cedar" --schema "$w/s.cedarschema" -o "$w/typed.bundle"
  expect_status 0
  note "no schema"
  run authorize --bundle "$w/typed.bundle" --entities "$w/e.json" --requests "$w/r.json"
  expect_errors
  run query --bundle "$w/typed.bundle" --entities "$w/e.json" "${query[@]}"
  expect_errors
  run diff --old "$w/typed.bundle" --new "$w/p.cedar" --entities "$w/e.json" --requests "$w/r.json"
  expect_errors
  note "another schema"
  run authorize --bundle "$w/typed.bundle" --schema "$w/s.cedarschema" --schema "$w/extra.cedarschema" \
    --entities "$w/e.json" --requests "$w/r.json"
  expect_errors
  run query --bundle "$w/typed.bundle" --schema "$w/other.cedarschema" --entities "$w/e.json" "${query[@]}"
  expect_errors
  run diff --old "$w/typed.bundle" --new "$w/p.cedar" --schema "$w/other.cedarschema" --entities "$w/e.json" \
    --requests "$w/r.json"
  expect_errors
  note "its own schema"
  run authorize --bundle "$w/typed.bundle" --schema "$w/s.cedarschema" --entities "$w/e.json" --requests "$w/r.json"
  expect_status 0
  expect_no_stderr
  run query --bundle "$w/typed.bundle" --schema "$w/s.cedarschema" --entities "$w/e.json" "${query[@]}"
  expect_status 0
  expect_no_stderr
  run diff --old "$w/typed.bundle" --new "$w/p.cedar" --schema "$w/s.cedarschema" --entities "$w/e.json" \
    --requests "$w/r.json"
  expect_status 0
  expect_no_stderr
}

# Scheduling rules (docs/scheduling.md, "Scheduling rules"): the standard
# rules, typed against stdlib's two schemas read as one, over the governance
# example's entities; outcomes name the rules that changed them.
case_schedule_rules() {
  local std=tests/schedule/rules/standard.json special=tests/schedule/rules/special.json
  local schemas=(--schema stdlib/governance.cedarschema --schema stdlib/scheduling.cedarschema)
  run schedule --state $std --scenario restricted-data-never-borrows --policies stdlib/scheduling.cedar
  expect_status 0
  expect_no_stderr
  run schedule --state $std --scenario interactive-never-preempted --policies stdlib/scheduling.cedar \
    "${schemas[@]}" --format json
  expect_status 0
  expect_no_stderr
  run schedule --state $special --scenario governance-team-never-preempts \
    --policies stdlib/scheduling.cedar --policies tests/schedule/rules/special.cedar \
    "${schemas[@]}" --entities "$entities"
  expect_status 0
  expect_no_stderr
  run simulate --state $special --scenario admission-denied --policies tests/schedule/rules/special.cedar --cycles 2
  expect_status 0
  expect_no_stderr
}

case_schedule_rules_errors() {
  local std=tests/schedule/rules/standard.json scenario=(--scenario restricted-data-never-borrows)
  local schemas=(--schema stdlib/governance.cedarschema --schema stdlib/scheduling.cedarschema)
  note "a syntax error in a rule"
  printf '@id("x") forbid (principal, action, resource) when { principal. };\n' >"$work/syntax.cedar"
  run schedule --state $std "${scenario[@]}" --policies "$work/syntax.cedar"
  expect_errors
  note "a rule the schema refuses (an attribute workloads do not have)"
  printf '@id("x") forbid (principal, action == Scheduling::Action::"borrow", resource)\n  when { principal.team == "a" };\n' >"$work/typed.cedar"
  run schedule --state $std "${scenario[@]}" --policies "$work/typed.cedar" "${schemas[@]}"
  expect_errors
  note "a fault in the second of two schemas, at its own line and column"
  printf 'namespace Scheduling {\n  entity Cohort in [Cohort] { name: Strin };\n}\n' >"$work/bad.cedarschema"
  run schedule --state $std "${scenario[@]}" --policies stdlib/scheduling.cedar \
    --schema stdlib/governance.cedarschema --schema "$work/bad.cedarschema"
  expect_errors
  grep -q 'bad.cedarschema:2:' "$stderr_file" || fail "not at the fault's own line"
  note "two rules with one id, in two files; one file given twice"
  printf '@id("interactive-never-preempted") forbid (principal, action, resource);\n' >"$work/same-id.cedar"
  run schedule --state $std "${scenario[@]}" --policies stdlib/scheduling.cedar --policies "$work/same-id.cedar"
  expect_errors
  run schedule --state $std "${scenario[@]}" --policies stdlib/scheduling.cedar --policies stdlib/scheduling.cedar
  expect_errors
  note "entities that do not conform to the schema"
  printf '[{"uid": {"type": "Governance::Team", "id": "t"}, "attrs": {}, "parents": []}]\n' >"$work/entities.json"
  run schedule --state $std "${scenario[@]}" --policies stdlib/scheduling.cedar "${schemas[@]}" \
    --entities "$work/entities.json"
  expect_errors
  note "a missing rules file; --entities without --policies"
  run schedule --state $std "${scenario[@]}" --policies "$work/none.cedar"
  expect_errors
  run schedule --state $std "${scenario[@]}" --entities "$entities"
  expect_errors
  note "a permit that names a scheduling action is a warning: it changes nothing"
  printf '@id("let-all-borrow") permit (principal, action == Scheduling::Action::"borrow", resource);\n' >"$work/permit.cedar"
  run schedule --state $std "${scenario[@]}" --policies "$work/permit.cedar"
  expect_status 0
  [[ $(wc -l <"$stderr_file") -eq 1 ]] || fail "not one warning"
}

# ---- charter admit ------------------------------------------------------------
# The webhook example's policies, entities and configuration, decided offline
# as `charter serve` would decide them (tests/serve/admit_test.sh checks the
# answers against the server's).

admit_example=(--policies examples/webhook/policies.cedar --schema stdlib/governance.cedarschema
  --schema stdlib/kubernetes.cedarschema --entities examples/webhook/entities.json
  --config examples/webhook/config.json)
admit_alice=(--as alice --as-group hyperpod-team-a-users)
objects=examples/webhook/objects

case_admit_objects() {
  note "an allowed Pod, YAML"
  run admit "${admit_example[@]}" "${admit_alice[@]}" $objects/pod.yaml
  expect_status 0
  expect_no_stderr
  note "a denied Pod: the configured reason follows the policy"
  run admit "${admit_example[@]}" "${admit_alice[@]}" $objects/pod-bare-gpu.yaml
  expect_status 2
  expect_no_stderr
  note "a Job (allowed) and a PyTorchJob (denied): the answers as the server gives them, a line each"
  run admit "${admit_example[@]}" "${admit_alice[@]}" --format json $objects/job.yaml $objects/pytorchjob.yaml
  expect_status 2
  expect_no_stderr
  [[ $(wc -l <"$stdout_file") -eq 2 ]] || fail "not one answer a line"
  note "a Kueue Workload, created by Kueue's controller"
  run admit "${admit_example[@]}" --as system:serviceaccount:kueue-system:kueue-controller-manager $objects/workload.yaml
  expect_status 0
  expect_no_stderr
  note "by default the cluster administrator creates it, whom these policies let in (the forbids still apply)"
  run admit "${admit_example[@]}" $objects/job.yaml
  expect_status 0
  note "... and a bare GPU Pod is forbidden to the administrator too"
  run admit "${admit_example[@]}" $objects/pod-bare-gpu.yaml
  expect_status 2
  note "in a rollout's warn mode, as charter serve --enforcement warn answers: allowed, with a warning"
  run admit "${admit_example[@]}" --enforcement warn $objects/pod-bare-gpu.yaml
  expect_status 0
  note "the same Pod from stdin, in JSON"
  printf '%s\n' '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "alice-notebook", "namespace": "hyperpod-ns-team-a", "labels": {"kueue.x-k8s.io/queue-name": "hyperpod-ns-team-a-localqueue"}}, "spec": {"containers": [{"name": "notebook", "resources": {"requests": {"nvidia.com/gpu": 1}}}]}}' >"$work/pod.json"
  stdin_from="$work/pod.json"
  run admit "${admit_example[@]}" "${admit_alice[@]}" -
  stdin_from=""
  expect_status 0
  expect_no_stderr
  rm -f "$work/pod.json"
  note "a bundle instead of the policies, and the review each object is decided as"
  run build --policies examples/webhook/policies.cedar --schema stdlib/governance.cedarschema \
    --schema stdlib/kubernetes.cedarschema -o "$work/webhook.bundle"
  run admit --bundle "$work/webhook.bundle" "${admit_example[@]:2}" "${admit_alice[@]}" $objects/pod-bare-gpu.yaml
  expect_status 2
  rm -f "$work/webhook.bundle"
  run admit --format review --as bob --as-group hyperpod-team-b-users $objects/pod.yaml
  expect_status 0
  expect_no_files
}

# A cluster's objects as `kubectl get -A -o json` prints them: which would
# be denied today, by policy.
case_admit_audit() {
  run admit "${admit_example[@]}" "${admit_alice[@]}" $objects/cluster.json
  expect_status 2
  expect_no_stderr
  note "several files, YAML and JSON, summed up together"
  run admit "${admit_example[@]}" "${admit_alice[@]}" $objects/pod.yaml $objects/job.yaml $objects/pod-bare-gpu.yaml
  expect_status 2
  note "everything allowed: exit 0"
  run admit "${admit_example[@]}" "${admit_alice[@]}" $objects/pod.yaml $objects/job.yaml
  expect_status 0
}

# Reviews as the apiserver sends them, decided as they are (--as is for
# plain objects only).
case_admit_reviews() {
  local r=tests/serve/reviews
  run admit "${admit_example[@]}" $r/pytorchjob-update-priority-escalation.json $r/pod-delete.json \
    $r/sar-team-sa-delete-nodes.json $r/sar-team-user-create-pods.json $r/sar-nonresource-healthz.json
  expect_status 2
  expect_no_stderr
  run admit "${admit_example[@]}" --format json $r/sar-team-user-create-pods.json
  expect_status 0
  expect_no_stderr
}

case_admit_bad_input() {
  note "no policies"
  run admit $objects/pod.yaml
  expect_errors
  note "--as-group without --as; an empty --as"
  run admit "${admit_example[@]}" --as-group g $objects/pod.yaml
  expect_errors
  run admit "${admit_example[@]}" --as "" $objects/pod.yaml
  expect_errors
  note "a missing file and malformed YAML: each at its place, nothing decided"
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x\n' >"$work/bad.yaml"
  run admit "${admit_example[@]}" "$work/none.yaml" "$work/bad.yaml"
  expect_errors 2
  note "a document that is not an object; an object without a kind; a value with no JSON form"
  printf -- '- a\n- b\n' >"$work/seq.yaml"
  printf 'apiVersion: v1\nmetadata: {name: x}\n' >"$work/nokind.yaml"
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nspec: {priority: .inf}\n' >"$work/inf.yaml"
  run admit "${admit_example[@]}" "$work/seq.yaml" "$work/nokind.yaml" "$work/inf.yaml"
  expect_errors 3
  note "stdin given twice"
  run admit "${admit_example[@]}" - -
  expect_errors
  note "a review of the wrong version"
  printf '{"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview", "request": {}}\n' >"$work/v1beta1.json"
  run admit "${admit_example[@]}" "$work/v1beta1.json"
  expect_status 1
  note "an object the server would answer with 400 is an error at its place; the others are decided"
  printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: half, namespace: hyperpod-ns-team-a}\nspec:\n  containers:\n  - name: a\n    resources: {requests: {nvidia.com/gpu: "1.5"}}\n---\n' >"$work/two.yaml"
  cat $objects/pod.yaml >>"$work/two.yaml"
  run admit "${admit_example[@]}" "${admit_alice[@]}" "$work/two.yaml"
  expect_status 1
  run admit "${admit_example[@]}" "${admit_alice[@]}" --format json "$work/two.yaml"
  expect_status 1
  note "an object that asks for more GPUs than can be counted is denied, not an error"
  printf 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: wrap, namespace: hyperpod-ns-team-a}\nspec:\n  parallelism: 8\n  template: {spec: {containers: [{name: a, resources: {requests: {nvidia.com/gpu: 2147483647}}}]}}\n' >"$work/wrap.yaml"
  run admit "${admit_example[@]}" "${admit_alice[@]}" "$work/wrap.yaml"
  expect_status 2
  note "policies that do not compile against the schema; a configuration that does not load"
  printf 'permit (principal, action, resource is Kubernetes::Pod) when { resource.nope };\n' >"$work/p.cedar"
  run admit --policies "$work/p.cedar" "${admit_example[@]:2}" $objects/pod.yaml
  expect_status 1
  printf '{"reasons": 5}\n' >"$work/config.json"
  run admit "${admit_example[@]:0:8}" --config "$work/config.json" $objects/pod.yaml
  expect_errors
  rm -f "$work"/*.yaml "$work"/*.json "$work"/*.cedar
}

# Admission cases of `charter test` (docs/testing.md): the webhook example's.
case_admit_test_cases() {
  run test examples/webhook/webhook.test.json --coverage
  expect_status 0
  expect_no_stderr
  note "a failing admission case beside an inline object that passes"
  run test $golden/admit-failing.test.json
  expect_status 1
  note "faults at their place in the test file"
  local t
  for t in groups-without-as two-objects fractional-gpu; do
    run test $golden/admit-$t.test.json
    expect_status 1
    [[ $(wc -l <"$stderr_file") -eq 1 ]] || fail "not one error"
  done
}

# Scheduling cases of `charter test` (docs/testing.md): the governance
# example's, with the standard rules; a failing case; faults at their place.
case_schedule_test_cases() {
  run test examples/governance/scheduling.test.json --coverage
  expect_status 0
  expect_no_stderr
  run test examples/governance/scheduling.test.json --format json
  expect_status 0
  note "the two standard rules the example's queues cannot meet, on nested cohorts and fair sharing; whole states"
  run test tests/schedule/rules/standard
  expect_status 0
  expect_no_stderr
  note "a failing case beside one that reads its workloads from a file and runs two cycles"
  run test $golden/schedule-failing.test.json
  expect_status 1
  note "faults at their place in the test file"
  local t
  for t in faults cycles reasons decision no-declarations state-and-declarations bad-workload; do
    run test $golden/schedule-$t.test.json
    expect_status 1
    [[ $(wc -l <"$stderr_file") -eq 1 ]] || fail "not one error"
  done
}

# ---------------------------------------------------------------------------

cases() { declare -F | sed -n 's/^declare -f case_//p'; }

if [[ "$case_name" == --list ]]; then
  cases
  exit 0
fi
if ! declare -F "case_$case_name" >/dev/null; then
  echo "unknown case '$case_name'; cases: $(cases | tr '\n' ' ')" >&2
  exit 2
fi
"case_$case_name"

expected="$golden/$case_name.golden"
if [[ "${CHARTER_UPDATE_GOLDEN:-}" == 1 ]]; then
  cp "$transcript" "$expected"
  echo "updated $expected"
elif [[ ! -f "$expected" ]]; then
  fail "no golden file $expected (run with CHARTER_UPDATE_GOLDEN=1 to create it)"
elif ! diff -u --label "$expected" --label "actual" "$expected" "$transcript" >&2; then
  fail "output differs from $expected (CHARTER_UPDATE_GOLDEN=1 rewrites it)"
fi
if grep -qF "$root" "$transcript"; then fail "the transcript holds an absolute path"; fi

if [[ $failures -gt 0 ]]; then
  echo "$case_name: $failures failure(s)" >&2
  exit 1
fi
echo "$case_name: ok"
