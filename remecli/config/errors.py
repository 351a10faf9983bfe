"""The one error type a bad configuration raises: a single line a user can act on."""


class ConfigError(Exception):
    """A configuration problem, phrased as one line that names the key or file."""
