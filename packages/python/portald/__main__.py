"""`portald` (the console script) and `python -m portald`: run the binary this wheel carries."""

import os
import subprocess
import sys

from . import binary_path


def main() -> None:
    binary = binary_path()
    args = [binary] + sys.argv[1:]
    if sys.platform == "win32":
        # No exec on Windows: run it and pass its exit status on.
        sys.exit(subprocess.call(args))
    os.execv(binary, args)


if __name__ == "__main__":
    main()
