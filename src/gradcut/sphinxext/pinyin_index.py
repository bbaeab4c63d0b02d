"""The Chinese general index in pinyin order.

Sphinx sorts and groups the index by code point: every Chinese term is a group of its
own, in an order no reader can follow. In Chinese, entries are sorted and grouped by
their pinyin (叶子张量 under Y, between English words that start with Y), as Chinese
indexes and dictionaries are. Sphinx has no option for the sort key, so its two key
functions are wrapped for languages listed in :data:`PINYIN_LANGUAGES`.
"""

from sphinx.environment.adapters import indexentries
from sphinx.errors import ExtensionError

PINYIN_LANGUAGES = {"zh_CN"}


def pinyin(text: str) -> str:
    """``叶子张量（leaf tensor）`` -> ``yezizhangliang（leaf tensor）``; other text as is."""
    from pypinyin import lazy_pinyin

    return "".join(lazy_pinyin(text))


def sort_text(entry: str) -> str:
    """What an entry sorts by: the pinyin of its headword, syllable by syllable, without
    the English it is glossed with, so that a word sorts before the longer words it
    starts: ``梯度（gradient）`` -> ``ti du``, before ``梯度惩罚`` -> ``ti du cheng fa``."""
    import re

    from pypinyin import lazy_pinyin

    head = re.split(r"\s*[（(]", entry, maxsplit=1)[0] or entry
    return " ".join(lazy_pinyin(head)).lower()


def _wrap(app):
    if app.config.language not in PINYIN_LANGUAGES:
        return
    try:
        import pypinyin  # noqa: F401
    except ImportError as err:
        raise ExtensionError(
            "pypinyin is not installed: the Chinese index would be in code-point order. "
            "Install the site's requirements (make html does)."
        ) from err
    sort_key, group_key = indexentries._key_func_1, indexentries._group_by_func
    if getattr(sort_key, "gradcut_pinyin", False):
        return

    def by_pinyin(entry):
        key, rest = entry
        # the entry itself breaks ties, as in Sphinx's own key
        return sort_key((sort_text(key), rest))[0], key

    def group_by_pinyin(entry):
        key, rest = entry
        return group_key((pinyin(key), rest))

    by_pinyin.gradcut_pinyin = True
    indexentries._key_func_1 = by_pinyin
    indexentries._group_by_func = group_by_pinyin


def setup(app):
    app.connect("builder-inited", _wrap)
