"""The lock of the README's commands: what it was made from, and whether it still matches.

`requirements/lock.txt` pins every package the two README commands install (the project with its
`test`, `tune` and `parquet` extras), made by `uv pip compile`. Its first line records a hash of
what it was compiled from (requires-python, dependencies and optional-dependencies in
pyproject.toml, and the packages `requirements/excludes.txt` leaves out), so that a set-up can
refuse a lock that no longer matches.

    python scripts/lock.py check     # exit 1, naming the refresh command, when the lock is stale
    python scripts/lock.py inputs    # print the inputs hash of pyproject.toml
    bash scripts/lock.sh             # the one command that refreshes the lock

Standard library only: it runs before the venv exists.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "lock.txt"
PYPROJECT = ROOT / "pyproject.toml"
EXCLUDES = ROOT / "requirements" / "excludes.txt"
HEADER = "# inputs-sha256: "
REFRESH = "bash scripts/lock.sh"


def excluded(excludes: Path = EXCLUDES) -> list[str]:
    """The packages the lock leaves out (one name per line of ``excludes``; # comments)."""
    if not excludes.is_file():
        return []
    lines = (line.split("#", 1)[0].strip() for line in excludes.read_text("utf-8").splitlines())
    return sorted(line.lower() for line in lines if line)


def inputs_hash(pyproject: Path = PYPROJECT, excludes: Path = EXCLUDES) -> str:
    """A hash of what decides the lock's pins: pyproject.toml's requirements and the excludes."""
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    inputs: dict[str, object] = {
        "requires-python": project.get("requires-python"),
        "dependencies": sorted(project.get("dependencies", [])),
        "optional-dependencies": {
            k: sorted(v) for k, v in sorted(project.get("optional-dependencies", {}).items())
        },
    }
    if excludes := excluded(excludes):  # (a lock made before the file existed keeps its hash)
        inputs["excludes"] = excludes
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def recorded_hash(lock: Path = LOCK) -> str | None:
    """The inputs hash written at the top of the lock, or None when there is none."""
    if not lock.is_file():
        return None
    for line in lock.read_text(encoding="utf-8").splitlines()[:5]:
        if line.startswith(HEADER):
            return line[len(HEADER) :].strip()
    return None


def pins(lock: Path = LOCK) -> dict[str, tuple[str, str | None]]:
    """The lock's pins as {normalised name: (version, environment marker or None)}."""
    out: dict[str, tuple[str, str | None]] = {}
    for raw in lock.read_text(encoding="utf-8").splitlines():
        line = raw.split(" #", 1)[0].strip()
        if "==" not in line or line.startswith(("#", "-")):
            continue
        requirement, _, marker = line.partition(";")
        name, version = requirement.split("==", 1)
        name = name.split("[", 1)[0].strip().lower().replace("_", "-").replace(".", "-")
        out[name] = (version.strip(), marker.strip() or None)
    return out


def check(pyproject: Path = PYPROJECT, lock: Path = LOCK) -> str | None:
    """None when the lock matches pyproject.toml and the excludes beside it, else a message
    saying how to refresh it."""
    rel = lock.name if lock.parent.name != "requirements" else f"requirements/{lock.name}"
    have = recorded_hash(lock)
    if have is None:
        return f"{rel} is missing or has no '{HEADER.strip()}' line: make it with `{REFRESH}`"
    if have != inputs_hash(pyproject, lock.with_name(EXCLUDES.name)):
        return (
            f"{rel} does not match pyproject.toml and requirements/excludes.txt (one changed "
            f"since the lock was made): refresh it with `{REFRESH}` and commit them together"
        )
    return None


def main(argv: list[str]) -> int:
    cmd = argv[1] if len(argv) > 1 else "check"
    if cmd == "inputs":
        print(inputs_hash())
        return 0
    if cmd == "check":
        problem = check()
        if problem:
            print(f"tooleval_nb setup: {problem}", file=sys.stderr)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
