"""Brain tumor MRI classification: .mat datasets, the synthetic sample, models, training and prediction."""
