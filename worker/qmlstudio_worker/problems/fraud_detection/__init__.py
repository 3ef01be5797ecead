"""The fraud detection problem type (schemas/problems/fraud-detection.json)."""
