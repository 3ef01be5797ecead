"""The stock price prediction problem type (schemas/problems/stock-price-prediction.json)."""
