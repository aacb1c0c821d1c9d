"""Arena: running matches between bots and comparing their results."""
