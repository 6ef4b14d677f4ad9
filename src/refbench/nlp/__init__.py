"""Language infrastructure shared by tasks and models (the MiniLM encoder, stop words).

It sits below ``tasks/`` so that imports only point down: tasks (difficulty profiles, sampling,
the TNE model) and models both use it, and neither reaches into the other for it.
"""
