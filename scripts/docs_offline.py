"""Check that a built docs site loads nothing from the network: no ``<script src>``,
stylesheet, image, icon, font or CSS ``url()``/``@import`` with an http(s) address. Links a reader
clicks (``<a href>``) are fine.

    python scripts/docs_offline.py site

The notebook pages carry nbconvert's Mermaid loader, an inline script that imports Mermaid from a
CDN only when the page holds a Mermaid diagram; a page with such a diagram is reported.
Exit 0 when every page is offline, 1 naming each page and address otherwise.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: attributes that make the browser fetch something as the page loads
_FETCHED = re.compile(
    r"""<(?:script|img|source|iframe|embed|video|audio)\b[^>]*?\bsrc\s*=\s*["']?(https?://[^"'\s>]+)"""
    r"""|<link\b(?=[^>]*\brel\s*=\s*["']?(?:stylesheet|icon|preload|modulepreload|manifest))"""
    r"""[^>]*?\bhref\s*=\s*["']?(https?://[^"'\s>]+)"""
    r"""|url\(\s*["']?(https?://[^"')\s]+)"""
    r"""|@import\s+["'](https?://[^"']+)""",
    re.IGNORECASE,
)
_MERMAID_DIAGRAM = 'class="jp-Mermaid'


def offline_problems(site: Path) -> list[str]:
    """``"page: address"`` for every network asset a page of ``site`` would load."""
    problems = []
    for page in sorted(site.rglob("*")):
        if page.suffix not in (".html", ".css") or not page.is_file():
            continue
        text = page.read_text(encoding="utf-8", errors="replace")
        for match in _FETCHED.finditer(text):
            address = next(g for g in match.groups() if g)
            problems.append(f"{page.relative_to(site)}: {address}")
        if _MERMAID_DIAGRAM in text:
            problems.append(f"{page.relative_to(site)}: a Mermaid diagram (loaded from a CDN)")
    return problems


def main(argv: list[str]) -> int:
    site = Path(argv[0] if argv else "site")
    if not (site / "index.html").is_file():
        print(f"docs_offline: {site}/index.html not found; build the site first", file=sys.stderr)
        return 1
    problems = offline_problems(site)
    if problems:
        print("docs_offline: pages that load from the network:", file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        return 1
    pages = sum(1 for _ in site.rglob("*.html"))
    print(f"docs_offline: {pages} pages, none loads anything from the network")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
