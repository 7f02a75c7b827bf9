#!/usr/bin/env python3
"""Keeps a shared cargo target directory from filling the disk.

Every commit built into the same target leaves its own test executables
(`debug/deps/NAME-HASH`) and incremental caches behind; over a few dozen
commits they reach tens of gigabytes. This removes each test or binary
executable that has a newer one of the same name (cargo builds again any
it still needs), and an incremental cache past LIMIT_GB (default 12).

Usage: prune_target.py TARGET_DIR [LIMIT_GB]
"""

import os
import re
import shutil
import sys


def size_of(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


def main(target, limit_gb):
    freed = 0
    for profile in ("debug", "release"):
        deps = os.path.join(target, profile, "deps")
        if not os.path.isdir(deps):
            continue
        groups = {}
        for name in os.listdir(deps):
            path = os.path.join(deps, name)
            match = re.fullmatch(r"([A-Za-z0-9_]+)-[0-9a-f]{16}", name)
            if match and os.path.isfile(path) and os.access(path, os.X_OK):
                groups.setdefault(match.group(1), []).append(path)
        for paths in groups.values():
            paths.sort(key=os.path.getmtime, reverse=True)
            for stale in paths[1:]:
                for path in (stale, stale + ".d"):
                    if os.path.exists(path):
                        freed += os.path.getsize(path)
                        os.remove(path)
        incremental = os.path.join(target, profile, "incremental")
        if os.path.isdir(incremental):
            size = size_of(incremental)
            if size > limit_gb * 1e9:
                shutil.rmtree(incremental, ignore_errors=True)
                freed += size
    print(f"pruned {freed / 1e9:.1f} GB from {target}")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) == 3 else 12.0)
