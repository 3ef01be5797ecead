"""The vehicle routing problem type (schemas/problems/vehicle-routing.json)."""
