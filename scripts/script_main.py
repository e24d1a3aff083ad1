"""How the scripts end, as the C++ CLI does (harness/cli/main.cpp): every
failure is one line on stderr and an exit status, never a traceback. 2 bad
input (InputError, BadOutput), 3 an internal error (a bug: set
COLLBENCH_TRACEBACK=1 to see where), 4 a failed write (WriteFailed), 130
interrupted. A script's main raises; only this module turns that into a
status."""
import os
import sys
import traceback

from output_file import EXIT_BAD_INPUT, EXIT_WRITE_FAILED, BadOutput, WriteFailed
from results_csv import InputError, shown


def run(prog, main, argv):
    try:
        return main(argv)
    except (InputError, BadOutput) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except WriteFailed as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_WRITE_FAILED
    except KeyboardInterrupt:
        print(f"{prog}: interrupted (signal 2); no file half-written", file=sys.stderr)
        return 130
    except MemoryError:
        print(f"{prog}: error: out of memory", file=sys.stderr)
        return 3
    except Exception as e:  # noqa: BLE001 (the last line of defence)
        if os.environ.get("COLLBENCH_TRACEBACK"):
            traceback.print_exc()
        print(f"{prog}: internal error: {type(e).__name__}: {shown(e, 160)} (set "
              "COLLBENCH_TRACEBACK=1 for the traceback)", file=sys.stderr)
        return 3
