"""Build the sdist and the wheel, check them as a package index would, install the core wheel into
a fresh venv and run the command line from outside the repository against the fake server.

    .venv/bin/python scripts/wheel_check.py [--keep] [--offline]

1. ``uv build``: the sdist, then the wheel built from the sdist (so the sdist is complete).
2. Their metadata: valid core metadata (``packaging.metadata``, as ``twine check`` validates it),
   the licence as a PEP 639 expression with its file, the extras, no model runtime in the core,
   the bundled suites, the parser corpus and ``__main__`` inside the wheel.
3. The core wheel (no extra) into two fresh venvs, constrained by ``requirements/lock.txt`` and
   from uv's cache (``scripts/setup.sh`` filled it; uv asks PyPI's index only), with ``--no-build``, so that
   nothing can be compiled; the second install is timed from a warm cache. Prints seconds, MB and
   whether anything was compiled (targets: nothing compiled, <= 300 MB, <= 60 s: printed; a
   compile fails the check, size and time are figures), and the largest packages.
4. From a folder outside the repository, with no ``PYTHONPATH``: ``tooleval-nb run`` with no
   ``--suite`` runs every bundled suite against :class:`tooleval_nb.testing.FakeOpenAIServer`,
   ``--suite bundled:weather`` one; the embedded model (not in the core) is refused naming its
   extra; ``python -m tooleval_nb`` and ``te.__version__`` work; the parser corpus and the
   offline Vega bundle load (no vl-convert-python in the core); the README's first Python
   example runs as it is written.

Exit 0 when every check passes, 1 (saying which) otherwise. Standard library and ``packaging``.
"""

from __future__ import annotations

import argparse
import email
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
import zipfile
from pathlib import Path

from packaging.metadata import Metadata

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements" / "lock.txt"
#: what the core must not pull in (the extras' heavy parts)
HEAVY = ("llama-cpp-python", "wordllama", "jupyterlab", "ray", "bfcl-eval", "torch")
MAX_MB = 300
MAX_SECONDS = 60


#: a fenced Python block of the README (the first one is the example a new user runs first)
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.MULTILINE | re.DOTALL)


class CheckFailed(Exception):
    pass


def say(text: str) -> None:
    print(f"wheel_check: {text}", flush=True)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        raise CheckFailed(
            f"`{' '.join(map(str, cmd))}` exited {done.returncode}:\n"
            f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    return done


def uv() -> list[str]:
    return [sys.executable, "-m", "uv"]


def build(out: Path) -> tuple[Path, Path, float]:
    start = time.perf_counter()
    run([*uv(), "build", "--quiet", "--out-dir", str(out), str(ROOT)])
    took = time.perf_counter() - start
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return sdist, wheel, took


def check_metadata(sdist: Path, wheel: Path) -> str:
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        (meta_name,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        wheel_meta = zf.read(meta_name)
    with tarfile.open(sdist) as tf:
        (pkg_info,) = [
            m for m in tf.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO")
        ]
        extracted = tf.extractfile(pkg_info)
        assert extracted is not None
        sdist_meta = extracted.read()
        sdist_names = set(tf.getnames())
    problems: list[str] = []
    for label, raw in (("wheel METADATA", wheel_meta), ("sdist PKG-INFO", sdist_meta)):
        try:
            meta = Metadata.from_email(raw, validate=True)
        except Exception as exc:  # packaging's ExceptionGroup of every invalid field
            problems.append(f"{label}: invalid core metadata: {exc!r}")
            continue
        if meta.license_expression != "Apache-2.0":
            problems.append(f"{label}: License-Expression {meta.license_expression!r}")
        if "LICENSE" not in (meta.license_files or []):
            problems.append(f"{label}: no License-File LICENSE")
        if meta.description_content_type != "text/markdown" or not meta.description:
            problems.append(f"{label}: no markdown description (the README)")
        if not meta.project_urls or not meta.keywords or not meta.classifiers:
            problems.append(f"{label}: project URLs, keywords or classifiers missing")
        extras = {str(e) for e in (meta.provides_extra or [])}
        want = {"embedded", "semantic", "jupyterlab", "ray", "bfcl", "all", "test"}
        if not want <= extras:
            problems.append(f"{label}: extras {sorted(want - extras)} missing")
        core = [r for r in (meta.requires_dist or []) if r.marker is None]
        heavy = [str(r) for r in core if r.name.lower() in HEAVY]
        if heavy:
            problems.append(f"{label}: the core requires {heavy}")
    message = email.message_from_bytes(wheel_meta)
    version = message["Version"]
    for needed in (
        "tooleval_nb/__main__.py",
        "tooleval_nb/py.typed",
        "tooleval_nb/data/weather.json",
        "tooleval_nb/data/agent_booking.yaml",
        "tooleval_nb/data/parsers/hermes.yaml",
        "tooleval_nb/charts/vega_bundle.js.gz",
        "tooleval_nb/charts/VEGA_NOTICE.md",
        f"tooleval_nb-{version}.dist-info/licenses/LICENSE",
    ):
        if needed not in names:
            problems.append(f"wheel: {needed} missing")
    if f"tooleval_nb-{version}/LICENSE" not in sdist_names:
        problems.append("sdist: LICENSE missing")
    if problems:
        raise CheckFailed("metadata problems:\n  - " + "\n  - ".join(problems))
    n_core = sum(1 for r in message.get_all("Requires-Dist") or [] if ";" not in r)
    return (
        f"Metadata-Version {message['Metadata-Version']}, {message['Name']} {version}, "
        f"License-Expression {message['License-Expression']}, {n_core} core requirements, "
        f"extras {', '.join(message.get_all('Provides-Extra') or [])}"
    )


def folder_mb(folder: Path) -> float:
    total = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += path.stat().st_size
    return total / 1e6


def biggest(venv: Path, n: int = 8) -> str:
    """The ``n`` largest top-level folders of the venv's site-packages, in MB."""
    (site,) = venv.glob("lib/python*/site-packages")
    sizes = sorted(
        (
            (folder_mb(p), p.name)
            for p in site.iterdir()
            if p.is_dir() and not p.name.endswith(".dist-info")
        ),
        reverse=True,
    )
    return ", ".join(f"{name} {mb:.0f}" for mb, name in sizes[:n])


def install(wheel: Path, venv: Path, offline: bool) -> tuple[float, float, int]:
    run([*uv(), "venv", "--quiet", "--python", sys.executable, str(venv)])
    python = venv / "bin" / "python"
    start = time.perf_counter()
    # --no-build: a package that would have to be compiled (no wheel) fails the install
    run(
        [
            *uv(),
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            "--no-build",
            "--constraint",
            str(LOCK),
            *(["--offline"] if offline else []),
            str(wheel),
        ]
    )
    took = time.perf_counter() - start
    listed = run([*uv(), "pip", "list", "--python", str(python), "--format", "json"])
    return took, folder_mb(venv), len(json.loads(listed.stdout))


DRIVER = textwrap.dedent("""
    import importlib.metadata, importlib.util, json, subprocess, sys
    from pathlib import Path
    import tooleval_nb as te
    from tooleval_nb.formats.bundled import bundled_suite_names
    from tooleval_nb.parsers import load_corpus
    from tooleval_nb.testing import FakeOpenAIServer

    exe = str(Path(sys.executable).parent / "tooleval-nb")
    from tooleval_nb.charts import bundle_html

    out = {"version": te.__version__, "dist": importlib.metadata.version("tooleval_nb"),
           "heavy": [m for m in ("llama_cpp", "wordllama", "jupyterlab", "ray", "bfcl_eval",
                                 "vl_convert")
                     if importlib.util.find_spec(m) is not None],
           "vega": len(bundle_html()),
           "corpus": len(load_corpus("hermes").cases), "suites": bundled_suite_names(),
           "package": str(Path(te.__file__).parent)}
    def cli(*args):
        done = subprocess.run([exe, *args, "--store", "runs.db", "--progress", "none"],
                              capture_output=True, text=True, timeout=600)
        return {"code": done.returncode, "out": done.stdout, "err": done.stderr}
    with FakeOpenAIServer() as server:
        out["all"] = cli("run", "--model", "openai/fake", "--api-base", server.url,
                         "--max-cases", "1")
        out["one"] = cli("run", "--suite", "bundled:weather", "--model", "openai/fake",
                         "--api-base", server.url, "--max-cases", "3")
    out["embedded"] = cli("run", "--suite", "bundled:weather", "--max-cases", "1")
    help_ = subprocess.run([sys.executable, "-m", "tooleval_nb", "run", "--help"],
                           capture_output=True, text=True)
    out["help"] = {"code": help_.returncode, "out": " ".join(help_.stdout.split())}
    print(json.dumps(out))
""")


def check_cli(venv: Path, outside: Path) -> str:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "TOOLEVAL_PARSER_CORPUS")
    }
    env.update(
        LITELLM_LOCAL_MODEL_COST_MAP="True",
        TOOLEVAL_STORE=str(outside / "runs.db"),
        TOOLEVAL_CACHE_DIR=str(outside / "cache"),
    )
    done = run([str(venv / "bin" / "python"), "-c", DRIVER], cwd=outside, env=env, timeout=900)
    got = json.loads(done.stdout.strip().splitlines()[-1])
    problems = []
    if not got["package"].startswith(str(venv)):
        problems.append(f"tooleval_nb imported from {got['package']}, not the venv")
    if got["version"] != got["dist"]:
        problems.append(f"te.__version__ {got['version']} != installed {got['dist']}")
    if got["heavy"]:
        problems.append(f"the core venv has {got['heavy']}")
    if got["all"]["code"] != 0 or got["all"]["out"].count("suite: ") != len(got["suites"]):
        problems.append(
            f"`tooleval-nb run` (no --suite) exit {got['all']['code']}, expected "
            f"{len(got['suites'])} suites: {got['all']['out'][-800:]}"
            f"{got['all']['err'][-800:]}"
        )
    if got["vega"] < 500_000:
        problems.append(f"the offline Vega bundle is {got['vega']} characters")
    if got["one"]["code"] != 0 or got["one"]["out"].count("suite: ") != 1:
        problems.append(
            f"`--suite bundled:weather` exit {got['one']['code']}: {got['one']['err'][-800:]}"
        )
    if got["embedded"]["code"] != 2 or "'embedded' extra" not in got["embedded"]["err"]:
        problems.append(
            f"the embedded model without its extra: exit {got['embedded']['code']}, "
            f"{got['embedded']['err'][-800:]}"
        )
    if got["help"]["code"] != 0 or "bundled:weather" not in got["help"]["out"]:
        problems.append("`python -m tooleval_nb run --help` does not name bundled:weather")
    if problems:
        raise CheckFailed(
            "the installed wheel, outside the repository:\n  - " + "\n  - ".join(problems)
        )
    example = readme_example(venv, outside, env)
    refused = next(
        (line for line in got["embedded"]["err"].splitlines() if "'embedded' extra" in line), ""
    )
    return (
        f"from {outside}: {len(got['suites'])} bundled suites ran against the fake server "
        f"(no --suite), bundled:weather alone, python -m tooleval_nb, corpus "
        f"{got['corpus']} cases, the offline Vega bundle ({got['vega']:,} characters); without its extra the embedded model is refused: "
        f"{refused.strip()[:160]}; {example}"
    )


def readme_example(venv: Path, outside: Path, env: dict[str, str]) -> str:
    """Run the README's first Python block with the venv's python, from ``outside``."""
    found = _PYTHON_BLOCK.search((ROOT / "README.md").read_text(encoding="utf-8"))
    if found is None:
        raise CheckFailed("README.md has no ```python block")
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", found.group(1)],
        cwd=outside,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise CheckFailed(
            f"the README's first Python example exited {done.returncode} with only the core "
            f"wheel installed:\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
        )
    return f"the README's first example ran ({len(done.stdout.splitlines())} lines printed)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument(
        "--offline",
        action="store_true",
        help="install from uv's cache alone, without asking PyPI's index",
    )
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="tooleval-wheel."))
    try:
        sdist, wheel, took = build(scratch / "dist")
        say(
            f"built {sdist.name} ({sdist.stat().st_size / 1e3:.0f} kB) and {wheel.name} "
            f"({wheel.stat().st_size / 1e3:.0f} kB) from it in {took:.1f} s"
        )
        say("metadata ok: " + check_metadata(sdist, wheel))
        first, _, _ = install(wheel, scratch / "venv-first", args.offline)
        seconds, mb, n = install(wheel, scratch / "venv", args.offline)
        say(
            f"core wheel into a fresh venv from a warm cache: {seconds:.1f} s (first install "
            f"{first:.1f} s), {mb:.0f} MB, {n} packages, compiled: nothing (--no-build)"
        )
        say(
            f"targets: nothing compiled (met), <= {MAX_MB} MB "
            f"({'met' if mb <= MAX_MB else 'missed'}), <= {MAX_SECONDS} s "
            f"({'met' if seconds <= MAX_SECONDS else 'missed'}); the largest packages (MB): "
            + biggest(scratch / "venv")
        )
        outside = scratch / "elsewhere"
        outside.mkdir()
        say(check_cli(scratch / "venv", outside))
    except CheckFailed as exc:
        say(f"FAILED: {exc}")
        return 1
    finally:
        if args.keep:
            say(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    say("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
