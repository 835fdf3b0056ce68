package research

// MLflow tracking (off by default): schemas here, behaviour in issue #7.
func init() {
	const issue = "issue #7: MLflow"
	registerFamily("mlflow",
		Tool{Name: "mlflow.context", Feature: FeatureTracking, Issue: issue, ReadOnly: true,
			Description: "MLflow tracking context for an experiment (tracking URI, experiment and run).",
			Schema:      object([]string{"project_id", "experiment_id"}, props{"project_id": projectID, "experiment_id": experimentID})},
		Tool{Name: "mlflow.finalize_run", Feature: FeatureTracking, Issue: issue,
			Description: "Log the experiment's pinned results to its MLflow run and end it.",
			Schema:      object([]string{"project_id", "experiment_id"}, props{"project_id": projectID, "experiment_id": experimentID})},
	)
}
