"""The demand forecasting problem type (schemas/problems/demand-forecasting.json)."""
