#!/usr/bin/env bash
# meson reads the --gtest_output XML of the MPI tests; when every rank wrote
# it, a failing MPI test left two documents in one file and meson itself
# crashed ("junk after document element"). Runs report_probe (rank 1 fails,
# and finishes last) and checks that the report is rank 0's alone.
#   one_report.sh MPIEXEC REPORT_PROBE
set -u
mpiexec=$1 probe=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$mpiexec" -n 2 "$probe" --gtest_output="xml:$dir/report.xml" >"$dir/log" 2>&1
status=$?
if [ "$status" -eq 0 ]; then
  echo "report_probe exited 0, but its rank 1 fails: the job status lost the failure"
  cat "$dir/log"; exit 1
fi
if ! /usr/bin/python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' \
     "$dir/report.xml"; then
  echo "the XML report does not parse:"; cat "$dir/report.xml"; exit 1
fi
if grep -q rank-1-failure-marker "$dir/report.xml"; then
  echo "rank 1 wrote the XML report:"; cat "$dir/report.xml"; exit 1
fi
echo "one report, from rank 0; job status $status"
