package platform

import (
	"context"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"
)

// DependencyChecks are the readiness checks every role shares: the database
// answers a ping and the Temporal frontend knows the namespace.
func DependencyChecks(db *gorm.DB, temporal client.Client, namespace string) map[string]Check {
	return map[string]Check{
		"database": func(ctx context.Context) error {
			sqlDB, err := db.DB()
			if err != nil {
				return err
			}
			return sqlDB.PingContext(ctx)
		},
		"temporal": func(ctx context.Context) error {
			_, err := temporal.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
			return err
		},
	}
}
