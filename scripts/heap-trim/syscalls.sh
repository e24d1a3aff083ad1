#!/bin/bash
O=${OSU:?set OSU to the osu_reduce_scatter binary (OSU 7.4, c/mpi/collective/blocking)}
LIB=${LIB:-$PWD/build/transports/mpi/pmpi/libcollbench-pmpi.so}
CAL=${CAL:-$PWD/results/vm-2026-11-24-3/calibration.csv}
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; cd "$WORK"  # strace's per-rank files
for sz in 131072 524288; do
for v in mpich lib; do
  env=(); [ $v = lib ] && env=(-genv LD_PRELOAD $LIB -genv COLLBENCH_ALGO auto -genv COLLBENCH_PARAMS $CAL)
  for it in 100 300; do
    rm -f tr.*
    mpiexec -bind-to core -n 2 "${env[@]}" strace -f -qq -o tr -ff -e trace=mmap,munmap,brk,madvise,mprotect,process_vm_readv,sched_yield,nanosleep,clock_nanosleep,futex $O -m $sz:$sz -i $it -x 10 -T mpi_float 2>&1 | grep -E "^[0-9]" | sed "s/^/$v $sz i=$it: /"
    for f in tr.*; do echo "  $f: $(awk '{split($0,a,"("); n=split(a[1],b," "); print b[n]}' $f | sort | uniq -c | tr '\n' ' ')"; done
  done
done
done
