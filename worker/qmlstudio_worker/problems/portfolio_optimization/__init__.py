"""The portfolio optimization problem type (schemas/problems/portfolio-optimization.json)."""
