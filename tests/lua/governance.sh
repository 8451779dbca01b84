#!/usr/bin/env bash
# The governance example decided through the Lua module as `charter
# authorize` decides it: requests.json is turned into a Lua table (by
# python3), decided by governance.lua, and the decisions compared line by
# line with `charter authorize --format jsonl`.
#
#   governance.sh LUA MODULE_DIR CHARTER SOURCE_DIR WORK
set -euo pipefail
lua=$1 module_dir=$2 charter=$3 src=$4 work=$5
mkdir -p "$work"
ex="$src/examples/governance"
schema="$src/stdlib/governance.cedarschema"
python3 - "$ex/requests.json" >"$work/requests.lua" <<'PY'
import json, sys
def lua(v):
    if isinstance(v, bool): return "true" if v else "false"
    if isinstance(v, int): return str(v)
    if isinstance(v, str): return json.dumps(v)  # a JSON string is a valid Lua string literal for this text
    if isinstance(v, list): return "{" + ", ".join(lua(x) for x in v) + "}"
    if isinstance(v, dict): return "{" + ", ".join("[%s] = %s" % (json.dumps(k), lua(x)) for k, x in v.items()) + "}"
    raise SystemExit("cannot write %r as Lua" % (v,))
requests = json.load(open(sys.argv[1]))
print("return {")
for r in requests:
    r = {k: v for k, v in r.items() if k != "description"}
    print("  " + lua(r) + ",")
print("}")
PY
LUA_CPATH="$module_dir/?.so" "$lua" "$(dirname "$0")/governance.lua" "$ex/policies.cedar" "$schema" \
  "$ex/entities.json" "$work/requests.lua" >"$work/lua.out"
"$charter" authorize --policies "$ex/policies.cedar" --schema "$schema" --entities "$ex/entities.json" \
  --requests "$ex/requests.json" --format jsonl |
  # The errors' places in the policy text, which the Lua module does not report.
  sed -E 's/,"begin":[0-9]+,"end":[0-9]+(,"line":[0-9]+,"column":[0-9]+)?//g' >"$work/charter.out"
n=$(wc -l <"$work/charter.out")
((n > 0)) || { echo "charter authorize decided nothing" >&2; exit 1; }
diff "$work/charter.out" "$work/lua.out" || { echo "$lua and charter authorize disagree (< charter, > lua)" >&2; exit 1; }
echo "$lua decides the $n requests of examples/governance as charter authorize does"
