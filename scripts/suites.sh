# Sourced by scripts/test.sh and scripts/fuzz.sh: runs suites, counts what
# each reports, and ends with one plain "N passed, M failed" line (the line
# CI reads).
LOGDIR="$(mktemp -d)"
PASSED=0; FAILED=0; BROKEN=()

# run NAME KIND CMD...: KIND says how to count — cargo ("test result:" lines),
# node (TAP "# pass/# fail"), pyunit (unittest's "Ran N tests"), or check (the exit status is one test).
run() {
  local name="$1" kind="$2"; shift 2
  local log="$LOGDIR/$name.log"
  echo "=== $name: $*"
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]} p=0 f=0
  case "$kind" in
    cargo)
      p=$(grep -Eo 'test result: [A-Za-z]+\. [0-9]+ passed' "$log" | awk '{s+=$4} END {print s+0}')
      f=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}') ;;
    node)
      p=$(grep -E '^# pass [0-9]+' "$log" | awk '{s+=$3} END {print s+0}')
      f=$(grep -E '^# fail [0-9]+' "$log" | awk '{s+=$3} END {print s+0}') ;;
    pyunit)
      # Python's unittest: "Ran N tests", then "OK" or "FAILED (failures=a, errors=b)"
      local ran bad
      ran=$(grep -Eo '^Ran [0-9]+ test' "$log" | awk '{s+=$2} END {print s+0}')
      bad=$(grep -Eo '(failures|errors)=[0-9]+' "$log" | awk -F= '{s+=$2} END {print s+0}')
      p=$((ran - bad)); f=$bad ;;
    check)
      if [ "$rc" -eq 0 ]; then p=1; else f=1; fi ;;
  esac
  # A suite that exits non-zero without a counted failure still counts as one.
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  [ "$f" -gt 0 ] && BROKEN+=("$name")
  echo "=== $name: $p passed, $f failed"
}

finish() {
  rm -rf "$LOGDIR"
  [ ${#BROKEN[@]} -gt 0 ] && echo "failing suites: ${BROKEN[*]}"
  echo "$PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}
