"""What machine a benchmark ran on, for the first line of its report."""

from __future__ import annotations

import platform


def cpu_model() -> str:
    """The processor's model name (from /proc/cpuinfo on Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"
