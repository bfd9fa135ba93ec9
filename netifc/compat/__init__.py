"""Drop-in replacements for other packages' APIs, answered by netifc.

``netifc.compat.netifaces`` is netifaces 0.11's module: ``import
netifc.compat.netifaces as netifaces`` and the rest of a program stays as
it was.  ``netifc.compat.ifaddr`` is ifaddr 0.2's (``import
netifc.compat.ifaddr as ifaddr``), with change notifications besides.
"""
