#!/bin/sh
# cc_hangs.sh: a "compiler" (CC=) that closes its output and never finishes; its sleep's pid
# goes to $HB_TEST_CC_PID, so the check can see that it did not outlive the run.
exec >&- 2>&-
sleep 600 &
echo $! >"$HB_TEST_CC_PID"
wait
