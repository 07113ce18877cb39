"""Small workload files the project itself writes (synthetic workload specs, tiny samples).

Real traces are never copied here; ``meshsim trace fetch`` downloads them into the user's cache.
"""
