"""Adapters to the frameworks researchers already use (docs/integrations.md).

* :mod:`glory_ai.integrations.openspiel`: Glory to Rome as an OpenSpiel Python game
  (``pip install 'glory_ai[openspiel]'``);
* :mod:`glory_ai.integrations.pettingzoo`: a PettingZoo AEC environment
  (``pip install 'glory_ai[pettingzoo]'``);
* :mod:`glory_ai.integrations.gymnasium`: a single-agent Gymnasium environment whose other
  seats are glory_ai bots (``pip install 'glory_ai[pettingzoo]'``).

Each module imports its framework when it is imported, and says which extra to install
when the framework is missing. Nothing in the rest of the package imports them.
"""


def missing_extra(module: str, extra: str, error: ImportError) -> ImportError:
    """The ImportError raised when an adapter's framework is not installed."""
    return ImportError(f"glory_ai.integrations.{module} needs {error.name or 'its framework'}: "
                       f"pip install 'glory_ai[{extra}]'")
