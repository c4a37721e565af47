#!/usr/bin/env bash
# Each patch here puts back a bug a test names; this applies it, runs that test, expects it to FAIL, and restores the
# code whatever happens. A test that passes with its bug in place cannot catch it: the script says so and exits 1.
#   test-bugs/check.sh                 every patch
#   test-bugs/check.sh test-bugs/03-*  some of them
# Needs the project built once (./mvnw -B -DskipTests install); each check builds only the patched module and runs one
# test class or method.
set -uo pipefail
cd "$(dirname "$0")/.."
patches=("$@")
[ ${#patches[@]} -eq 0 ] && patches=(test-bugs/*.patch)
failed=0
for patch in "${patches[@]}"; do
  module=$(sed -n 's/^# module: //p' "$patch")
  test=$(sed -n 's/^# test: //p' "$patch")
  what=$(sed -n '1s/^# //p' "$patch")
  if ! git apply --check "$patch" 2>/dev/null; then
    echo "STALE   $patch: it no longer applies; make it again against the current code"
    failed=1
    continue
  fi
  git apply "$patch"
  trap 'git apply -R "$patch"' EXIT
  log="target/test-bugs-$(basename "$patch" .patch).log"
  mkdir -p target
  if ./mvnw -B -o -q -pl "$module" -am install -DskipTests -Dspotless.check.skip=true > "$log" 2>&1 \
      && ./mvnw -B -o -pl "$module" verify -Dspotless.check.skip=true -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false >> "$log" 2>&1; then
    echo "MISSED  $patch: $test passed with the bug in place ($what)"
    failed=1
  elif grep -q 'Tests run:.*\(Failures: [1-9]\|Errors: [1-9]\)' "$log"; then
    echo "CAUGHT  $patch: $test failed ($what)"
  else
    echo "BROKEN  $patch: the build failed before $test ran; see $log"
    failed=1
  fi
  git apply -R "$patch"
  trap - EXIT
done
# the code as it was, built again
./mvnw -B -o -q install -DskipTests > target/test-bugs-restore.log 2>&1 || { echo "could not rebuild after the checks"; exit 1; }
exit $failed
