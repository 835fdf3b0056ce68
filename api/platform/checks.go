package platform

import (
	"context"
	"sort"
	"sync"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"
)

// Check is one dependency's probe: nil means it answers.
type Check func(ctx context.Context) error

// Dependency is something a role talks to, with how to probe it.
type Dependency struct {
	Name  string
	Check Check
	// Required dependencies decide readiness; the others are only reported
	// (in the /readyz body and the gatehouse_dependency_up gauge).
	Required bool
}

// Dependencies are a role's probed dependencies.
type Dependencies []Dependency

// checkTimeout bounds one round of probes, so a dependency that hangs
// answers "error: context deadline exceeded" instead of stalling a probe;
// it stays under the chart's 2 s probe timeout, so a hung Temporal cannot
// make the api's readiness probe time out.
const checkTimeout = 1500 * time.Millisecond

// DependencyChecks are the API's dependencies. Only the database is
// required: the flywheel's hot paths (heartbeats, output acceptance) and
// every read of a closed record need nothing else, so an api pod stays in
// its Service while Temporal is down and answers those; calls that need
// Temporal answer 503 on their own. Temporal's state is reported.
func DependencyChecks(db *gorm.DB, temporal client.Client, namespace string) Dependencies {
	return Dependencies{
		{Name: "database", Check: databaseCheck(db), Required: true},
		{Name: "temporal", Check: temporalCheck(temporal, namespace)},
	}
}

// WorkerDependencyChecks are the worker's dependencies: both required,
// since a worker that cannot reach Temporal polls nothing and one without
// its database fails every activity.
func WorkerDependencyChecks(db *gorm.DB, temporal client.Client, namespace string) Dependencies {
	return Dependencies{
		{Name: "database", Check: databaseCheck(db), Required: true},
		{Name: "temporal", Check: temporalCheck(temporal, namespace), Required: true},
	}
}

// databaseCheck pings the database's connection pool.
func databaseCheck(db *gorm.DB) Check {
	return func(ctx context.Context) error {
		sqlDB, err := db.DB()
		if err != nil {
			return err
		}
		return sqlDB.PingContext(ctx)
	}
}

// temporalCheck asks the Temporal frontend for the namespace.
func temporalCheck(temporal client.Client, namespace string) Check {
	return func(ctx context.Context) error {
		_, err := temporal.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: namespace})
		return err
	}
}

// probe runs every check concurrently under checkTimeout and returns each
// dependency's error (nil when it answers), by name.
func (d Dependencies) probe(ctx context.Context) map[string]error {
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	results := make(map[string]error, len(d))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, dep := range d {
		wg.Add(1)
		go func(dep Dependency) {
			defer wg.Done()
			err := dep.Check(ctx)
			mu.Lock()
			results[dep.Name] = err
			mu.Unlock()
		}(dep)
	}
	wg.Wait()
	return results
}

// ready reports whether every required dependency answered in results.
func (d Dependencies) ready(results map[string]error) bool {
	for _, dep := range d {
		if dep.Required && results[dep.Name] != nil {
			return false
		}
	}
	return true
}

// names returns the dependencies' names, sorted.
func (d Dependencies) names() []string {
	out := make([]string, 0, len(d))
	for _, dep := range d {
		out = append(out, dep.Name)
	}
	sort.Strings(out)
	return out
}
