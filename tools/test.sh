#!/bin/sh
# make test after tools/deps.sh: the firmware's tests on both MicroPython builds (make
# test-micropython) run in the background beside pytest (make test-cpython, its workers on the
# cores); their output is kept in a file and shown once pytest is done. Exits 1 if either failed.
cd "$(dirname "$0")/.."
MAKE=${MAKE:-make}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
$MAKE --no-print-directory test-micropython >"$log" 2>&1 &
mp=$!
$MAKE --no-print-directory test-cpython
py=$?
wait $mp
mpy=$?
echo "---- make test-micropython (it ran beside pytest): exit $mpy ----"
cat "$log"
if [ "$py" != 0 ] || [ "$mpy" != 0 ]; then
    echo "carom: make test FAILED: pytest exit $py, the MicroPython runs exit $mpy" >&2
    exit 1
fi
