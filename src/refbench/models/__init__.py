"""Choice models: heuristics, a knowledge-integration resolver, MiniLM encoders, LLMs."""
