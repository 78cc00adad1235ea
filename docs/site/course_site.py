"""Helpers of the site's configuration (docs/site/conf.py) that Sphinx must import by name."""


def jupyter_anchor(text):
    """A heading's anchor as Jupyter writes it: the text, spaces as hyphens, case kept.

    The notebooks link to ``00_introduction.ipynb#Contents`` as JupyterLab and
    GitHub resolve it; the guides' lower-case anchors (``#before-class``) still
    resolve, as the sections' own ids.

    >>> jupyter_anchor("Handing out and grading")
    'Handing-out-and-grading'
    """
    return text.strip().replace(" ", "-")
