"""The site's own pages, beside the languages' pages: the root page that sends a reader
to a language, the root 404 page, ``sitemap.xml`` and ``robots.txt``."""

import html
import json
import runpy
from pathlib import Path
from xml.etree import ElementTree as ET

from gradcut.sphinxext import ICON
from gradcut.sphinxext.i18n import hreflang, language_url
from gradcut.tools.build import ROOT


def icon_href(languages: dict[str, str]) -> str:
    """The tab icon of the root pages: the one the first language's pages use."""
    return f"{next(iter(languages))}/_static/{ICON}"


def root_index(languages: dict[str, str]) -> str:
    """The site's front door: sends the reader to their language, or offers both."""
    links = "\n".join(
        f'    <li><a href="{code}/index.html" hreflang="{hreflang(code)}" '
        f'lang="{hreflang(code)}">{html.escape(label)}</a></li>'
        for code, label in languages.items()
    )
    codes = json.dumps(list(languages))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Cutting gradients in PyTorch · 在 PyTorch 中阻断梯度</title>
  <link rel="icon" href="{icon_href(languages)}">
  <style>
    body {{ font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto;
           padding: 0 1rem; line-height: 1.6; }}
    a {{ color: #0550ae; }}
  </style>
  <script>
    // Pick the reader's language: zh* -> zh_CN, anything else -> en.
    (function () {{
      var codes = {codes};
      var prefs = navigator.languages || [navigator.language || "en"];
      var choice = "en";
      for (var i = 0; i < prefs.length; i++) {{
        var p = String(prefs[i]).toLowerCase();
        if (p.indexOf("zh") === 0) {{ choice = "zh_CN"; break; }}
        if (p.indexOf("en") === 0) {{ choice = "en"; break; }}
      }}
      if (codes.indexOf(choice) >= 0) {{
        location.replace(choice + "/index.html" + location.search + location.hash);
      }}
    }})();
  </script>
</head>
<body>
  <h1>Cutting gradients in PyTorch</h1>
  <p>Choose a language · 选择语言</p>
  <ul>
{links}
  </ul>
</body>
</html>
"""


NOT_FOUND = {
    # title, sentence, link, the link with its language (full-width brackets in Chinese),
    # what comes between the sentence and the link (no space after a full-width 。)
    "en": ("Page not found", "There is no page at this address.", "Go to the home page", "{} ({})", " "),
    "zh_CN": ("找不到页面", "该地址没有对应的页面。", "前往首页", "{}（{}）", ""),
}


def root_404(languages: dict[str, str], base: str = "/") -> str:
    """What static hosts (GitHub Pages, Netlify) send for any missing address.

    Self-contained, in every language. Its links resolve against a ``<base>`` that a line
    of script moves to where the site lives: the part of the address before a language
    folder, or the folder of ``404.html`` itself when it is opened as such (the site's
    root, ``file://``); ``base`` (the path of ``gradcut_site_url``) without script.
    """
    codes = json.dumps(list(languages))
    sections = "\n".join(
        f'  <section lang="{hreflang(code)}">\n'
        f"    <p>{html.escape(NOT_FOUND[code][1])}{NOT_FOUND[code][4]}"
        f'<a href="{code}/index.html" hreflang="{hreflang(code)}">'
        f"{html.escape(NOT_FOUND[code][3].format(NOT_FOUND[code][2], label))}</a></p>\n"
        f"  </section>"
        for code, label in languages.items()
    )
    title = " · ".join(NOT_FOUND[code][0] for code in languages)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <base href="{html.escape(base)}">
  <script>
    (function () {{
      var codes = {codes};
      var path = location.pathname;
      var root = /[/]404[.]html$/.test(path) ? path.replace(/404[.]html$/, "") : null;
      for (var i = 0; i < codes.length && root === null; i++) {{
        var at = path.indexOf("/" + codes[i] + "/");
        if (at >= 0) root = path.slice(0, at + 1);
      }}
      if (root !== null) document.querySelector("base").href = new URL(root, location.href).href;
    }})();
  </script>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>{html.escape(title)}</title>
  <link rel="icon" href="{icon_href(languages)}">
  <style>
    body {{ font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto;
           padding: 0 1rem; line-height: 1.6; }}
    a {{ color: #0550ae; }}
  </style>
</head>
<body>
  <main>
  <h1>{html.escape(title)}</h1>
{sections}
  </main>
</body>
</html>
"""


# Pages that are not content: search engines have nothing to find in them.
NOT_CONTENT = {"search.html", "genindex.html", "py-modindex.html", "404.html"}
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"


def site_url() -> str:
    """The address the site is published at, as conf.py says (``gradcut_site_url``)."""
    return runpy.run_path(str(ROOT / "conf.py")).get("gradcut_site_url", "")


def content_pages(site: Path, language: str) -> list[str]:
    """The pages of one language worth finding, as paths relative to its folder."""
    pages = (path.relative_to(site / language) for path in (site / language).rglob("*.html"))
    return sorted(
        page.as_posix()
        for page in pages
        if not page.parts[0].startswith("_") and page.as_posix() not in NOT_CONTENT
    )


def sitemap(site: Path, languages: list[str], url: str) -> str:
    """A sitemap of every page in every language, each with its twins as alternates."""
    ET.register_namespace("", SITEMAP_NS)
    ET.register_namespace("xhtml", XHTML_NS)
    pages = {language: content_pages(site, language) for language in languages}
    urlset = ET.Element(f"{{{SITEMAP_NS}}}urlset")
    for page in sorted(set().union(*pages.values())):
        twins = [language for language in languages if page in pages[language]]
        for language in twins:
            entry = ET.SubElement(urlset, f"{{{SITEMAP_NS}}}url")
            ET.SubElement(entry, f"{{{SITEMAP_NS}}}loc").text = language_url(url, language) + page
            for twin in twins:
                ET.SubElement(
                    entry,
                    f"{{{XHTML_NS}}}link",
                    rel="alternate",
                    hreflang=hreflang(twin),
                    href=language_url(url, twin) + page,
                )
    ET.indent(urlset)
    return ET.tostring(urlset, encoding="unicode", xml_declaration=True) + "\n"


def robots(url: str) -> str:
    # Crawlers read robots.txt at the root of a host only: it takes effect on a domain of
    # the site's own. Under a project's Pages address (owner.github.io/project/) they never
    # see it, and the sitemap is to be submitted to them by hand.
    return f"User-agent: *\nAllow: /\n\nSitemap: {url.rstrip('/')}/sitemap.xml\n"
