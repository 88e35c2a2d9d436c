"""The mock provider: an HTTP server speaking four real wire dialects with simulated models and faults.

It imports nothing from :mod:`fcbench.adapters`: it is an independent implementation of the wire
formats, so a misunderstanding shared by both cannot hide.
"""
