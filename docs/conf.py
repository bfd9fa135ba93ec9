"""Sphinx configuration of netifc's documentation (sphinx-build -W docs docs/_build)."""
import logging

import netifc

project = "netifc"
author = "the netifc authors"
copyright = "the netifc authors (MIT licence)"
release = netifc.__version__
version = ".".join(release.split(".")[:2])

extensions = ["sphinx.ext.autodoc"]
html_theme = "furo"
html_title = f"netifc {release}"
html_static_path = ["_static"]
exclude_patterns = ["_build"]
# The pages of the rules (docs/rules.rst) and of the migrations
# (docs/migrating/*.rst) are in the table of contents by pattern; until they
# exist the pattern matches nothing, which is no error.
suppress_warnings = ["toc.empty_glob"]


class _PagesToCome(logging.Filter):
    """Sphinx releases that give that warning no type cannot suppress it:
    drop it here, for those two patterns only."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        return not ("didn't match any documents" in text
                    and ("'rules*'" in text or "'migrating/*'" in text))


logging.getLogger("sphinx.sphinx.directives.other").addFilter(_PagesToCome())
autodoc_member_order = "bysource"
autodoc_default_options = {"undoc-members": False}
highlight_language = "none"     # literal blocks (::) are tables and output, not code
