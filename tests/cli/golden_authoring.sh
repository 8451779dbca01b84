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
  run check --policies "$ex"
  expect_errors
  run check
  expect_errors
  run check --policies "$policies" --frobnicate
  expect_errors
}

case_help_authoring() {
  local command
  for command in check; do
    run "$command" --help
    expect_status 0
    expect_no_stderr
    grep -q "^Usage: charter $command" "$stdout_file" || fail "no usage for $command"
  done
}
