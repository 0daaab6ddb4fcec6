"""Colours: a Pygments style for the statement text, plus the shell's own pieces (toolbar, menu)."""

from __future__ import annotations

from prompt_toolkit.styles import Style, merge_styles, style_from_pygments_cls

DEFAULT_SYNTAX_STYLE = "default"

SHELL_STYLE = {
    "prompt": "bold",
    "prompt-continuation": "",
    "bottom-toolbar": "noreverse bg:#303030 #d0d0d0",
    "bottom-toolbar.label": "bg:#303030 #909090",
    "bottom-toolbar.on": "bg:#303030 #5fd75f bold",
    "bottom-toolbar.off": "bg:#303030 #d78700",
    "bottom-toolbar.warn": "bg:#303030 #ffd700 bold",
    "completion-menu.completion": "bg:#3a3a3a #e4e4e4",
    "completion-menu.completion.current": "bg:#5f87af #ffffff",
    "completion-menu.meta.completion": "bg:#444444 #bcbcbc",
    "completion-menu.meta.completion.current": "bg:#5f87af #ffffff",
    "pygments.error": "bg:#870000 #ffffff",
}


def shell_style(syntax_style: str = DEFAULT_SYNTAX_STYLE) -> Style:
    """The Pygments style ``syntax_style`` (falling back to ``default``) with the shell's colours."""
    from pygments.styles import get_style_by_name
    from pygments.util import ClassNotFound

    try:
        pygments_style = get_style_by_name(syntax_style)
    except ClassNotFound:
        pygments_style = get_style_by_name(DEFAULT_SYNTAX_STYLE)
    return merge_styles([style_from_pygments_cls(pygments_style), Style.from_dict(SHELL_STYLE)])
