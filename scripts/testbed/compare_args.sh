# Argument helpers shared by app_compare.sh and loop_compare.sh (sourced, not
# run): one line and exit 2 for a bad argument, prefixed with the script's name.

die_usage() { echo "$(basename "$0" .sh): $*" >&2; exit 2; }
need() { [ "$2" -ge 2 ] || die_usage "$1 needs a value"; }
int_in() {  # flag value lo hi
  [[ $2 =~ ^[0-9]{1,6}$ ]] && (( 10#$2 >= $3 && 10#$2 <= $4 )) ||
    die_usage "$1 '$2' is not an integer in $3..$4"
}
# The rank count of a run: --np's value, else the testbed's host count.
testbed_ranks() {  # testbed.sh name np
  echo "${3:-$(bash "$1" status --name "$2" | sed -n 's/.*: \([0-9]*\) hosts.*/\1/p')}"
}
