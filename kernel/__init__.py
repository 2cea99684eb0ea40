"""The shared kernel: the few value types every layer speaks (errors, who acts).

Nothing here imports Django or another cartlog package, so the lowest layers
can use it as freely as the highest.
"""
