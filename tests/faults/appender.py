"""A second writer: appends one numbered line to a file every `interval` seconds, opening it for
each line as `echo line >> file` does, until `seconds` have passed; prints how many it wrote.

Run as `python -m tests.faults.appender FILE SECONDS [INTERVAL]`.
"""

from __future__ import annotations

import sys
import time


def main(path: str, seconds: float, interval: float) -> int:
    """Append lines for `seconds`; returns the count written."""
    count = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"- appended line {count}\n")
        count += 1
        time.sleep(interval)
    return count


if __name__ == "__main__":
    interval = float(sys.argv[3]) if len(sys.argv) > 3 else 0.002
    print(main(sys.argv[1], float(sys.argv[2]), interval), flush=True)
