package research

// MLflow tracking (feature GATEHOUSE_FEATURE_TRACKING, off by default):
// one MLflow run per experiment, tagged with the project and experiment
// ids; finalize logs the pinned results and ends it. Handlers in mlflow_tools.go.
func init() {
	registerFamily("mlflow",
		Tool{Name: "mlflow.context", Feature: FeatureTracking, ReadOnly: false, Handler: mlflowContext,
			Description: "MLflow tracking context for an experiment: tracking URI, MLflow experiment and the experiment's run (created once).",
			Schema:      object([]string{"project_id", "experiment_id"}, props{"project_id": projectID, "experiment_id": experimentID})},
		Tool{Name: "mlflow.finalize_run", Feature: FeatureTracking, Handler: mlflowFinalize,
			Description: "Log the experiment's pinned results (params and metrics) to its MLflow run and end it; idempotent.",
			Schema:      object([]string{"project_id", "experiment_id"}, props{"project_id": projectID, "experiment_id": experimentID})},
	)
}
