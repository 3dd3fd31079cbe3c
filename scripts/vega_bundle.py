"""Write the Vega bundle the charts draw with offline: ``tooleval_nb/charts/vega_bundle.js.gz``
and its record ``vega_bundle.json`` (the versions it holds and its SHA-256).

    .venv/bin/python scripts/vega_bundle.py [--check]

The bundle is vl-convert-python's ``javascript_bundle()`` (Vega, Vega-Lite and vega-embed, with
the npm packages they use, as one script) for the Vega-Lite version of the installed Altair.
Shipping it inside the package keeps vl-convert-python (84 MB installed) out of the core: it is
in the ``test`` extra, for this script and for ``tests/charts/test_bundle.py``, which fails when
the shipped bundle is not the one vl-convert makes for the locked Altair (run this script then).
The licences of what the bundle holds are in ``tooleval_nb/charts/VEGA_NOTICE.md``.
``--check`` writes nothing: exit 1 when the shipped bundle is out of date.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import sys
from pathlib import Path

import altair as alt
import vl_convert
from altair.utils._importers import vl_version_for_vl_convert

CHARTS = Path(__file__).resolve().parent.parent / "tooleval_nb" / "charts"


def make() -> tuple[bytes, dict[str, str]]:
    """The bundle's text (UTF-8) and its record, as vl-convert makes them here."""
    js = vl_convert.javascript_bundle(None, vl_version=vl_version_for_vl_convert()).encode()
    record = {
        "vega": alt.VEGA_VERSION,
        "vega_lite": alt.VEGALITE_VERSION,
        "vega_embed": alt.VEGAEMBED_VERSION,
        "vl_convert": vl_convert.__version__,
        "sha256": hashlib.sha256(js).hexdigest(),
    }
    return js, record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    js, record = make()
    path = CHARTS / "vega_bundle.json"
    shipped = json.loads(path.read_text()) if path.exists() else {}
    if args.check:
        if shipped.get("sha256") != record["sha256"]:
            print(
                f"vega_bundle: stale (shipped {shipped}, vl-convert makes {record}); run "
                "scripts/vega_bundle.py",
                file=sys.stderr,
            )
            return 1
        print("vega_bundle: up to date", file=sys.stderr)
        return 0
    # mtime=0: the same bundle always gives the same bytes (no diff without a change)
    (CHARTS / "vega_bundle.js.gz").write_bytes(gzip.compress(js, 9, mtime=0))
    path.write_text(json.dumps(record, indent=2) + "\n")
    print(
        f"vega_bundle: {len(js):,} bytes ({record['vega_lite']}), written to {CHARTS}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
