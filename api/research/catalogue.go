// Package research serves the research tools of the Merv MCP tool contract
// over MCP (Streamable HTTP at /mcp/research) and as plain JSON
// (/v1/research/tools). The catalogue is assembled from families: each
// tools_*.go file registers its family in init, so adding a family is
// adding a file.
package research

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/gatehouse/gatehouse/contracts"
	"github.com/gatehouse/gatehouse/internal/config"
)

// Feature is the flag a family depends on ("" for always on).
type Feature string

// Feature flags of tool families.
const (
	FeatureNone      Feature = ""
	FeatureStorage   Feature = "storage"
	FeatureSandboxes Feature = "sandboxes"
	FeatureTracking  Feature = "tracking"
)

// Handler runs one tool call whose input already passed its schema.
type Handler func(ctx context.Context, s *Service, c *Call) (any, error)

// Tool is one catalogue entry.
type Tool struct {
	Name        string
	Description string
	Schema      map[string]any
	Hidden      bool
	ReadOnly    bool
	Feature     Feature
	// Handler runs the tool; a catalogue refuses a tool without one.
	Handler Handler

	schema *contracts.Schema
}

var families = map[string][]Tool{}

// alsoNeedsStorage are tools of another family that only object storage
// makes work: with storage off they are absent, not failing. With the
// storage family's four public tools they are the contract's "turning
// storage off removes 6 more" (41 public tools become 35):
// sandbox.pull_outputs copies into storage objects, and experiment.exhibit
// is built from the pinned result files those objects are.
var alsoNeedsStorage = map[string]bool{"sandbox.pull_outputs": true, "experiment.exhibit": true}

// registerFamily adds a family's tools; called from each tools_*.go init.
func registerFamily(name string, tools ...Tool) {
	if _, dup := families[name]; dup {
		panic("research: family registered twice: " + name)
	}
	families[name] = tools
}

// AllTools returns every registered tool regardless of features, by name.
func AllTools() []Tool {
	var out []Tool
	for _, f := range families {
		out = append(out, f...)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// Catalogue is the set of tools a deployment serves.
type Catalogue struct {
	Tools   []Tool
	byName  map[string]*Tool
	aliases bool
}

// NewCatalogue selects the tools the feature flags allow, compiles their
// schemas and checks their names.
func NewCatalogue(f config.Features) (*Catalogue, error) {
	c := &Catalogue{byName: map[string]*Tool{}, aliases: f.UnderscoreAliases}
	for _, t := range AllTools() {
		switch t.Feature {
		case FeatureStorage:
			if !f.Storage {
				continue
			}
		case FeatureSandboxes:
			if !f.Sandboxes {
				continue
			}
		case FeatureTracking:
			if !f.Tracking {
				continue
			}
		}
		if alsoNeedsStorage[t.Name] && !f.Storage {
			continue
		}
		if !toolName.MatchString(t.Name) || t.Description == "" || t.Handler == nil {
			return nil, fmt.Errorf("research tool %q: bad name, no description or no handler", t.Name)
		}
		raw, err := json.Marshal(t.Schema)
		if err != nil {
			return nil, err
		}
		t.schema, err = contracts.CompileJSON("https://gatehouse.invalid/research/"+t.Name+".json", raw)
		if err != nil {
			return nil, err
		}
		c.Tools = append(c.Tools, t)
	}
	for i := range c.Tools {
		t := &c.Tools[i]
		c.byName[t.Name] = t
		if c.aliases {
			c.byName[AliasOf(t.Name)] = t
		}
	}
	return c, nil
}

// AliasOf is the underscore alias of a dotted name.
func AliasOf(name string) string { return strings.ReplaceAll(name, ".", "_") }

// Lookup finds a tool by name (or alias in alias mode).
func (c *Catalogue) Lookup(name string) (*Tool, bool) {
	t, ok := c.byName[name]
	return t, ok
}

// Counts returns the number of public and hidden tools listed.
func (c *Catalogue) Counts() (public, hidden int) {
	for _, t := range c.Tools {
		if t.Hidden {
			hidden++
		} else {
			public++
		}
	}
	return public, hidden
}

// ListedName is the name a tool is listed under by default
// (GATEHOUSE_MCP_UNDERSCORE_ALIASES decides).
func (c *Catalogue) ListedName(t *Tool) string { return c.NameIn(t, NamingDefault) }

// Naming is the form of tool names one MCP connection lists: clients that
// reject dots ask for underscore names per connection (?names=underscore)
// whatever the deployment's default is. A connection lists one form only.
type Naming string

// The namings a connection may ask for.
const (
	// NamingDefault follows GATEHOUSE_MCP_UNDERSCORE_ALIASES.
	NamingDefault Naming = ""
	// NamingDotted lists the contract's dotted names.
	NamingDotted Naming = "dotted"
	// NamingUnderscore lists workflow_status_and_next for workflow.status_and_next.
	NamingUnderscore Naming = "underscore"
)

// ErrUnknownNaming is answered to a names value other than dotted or underscore.
var ErrUnknownNaming = errors.New(`names must be "dotted" or "underscore"`)

// ParseNaming reads the names query parameter ("" is the default).
func ParseNaming(v string) (Naming, error) {
	switch n := Naming(v); n {
	case NamingDefault, NamingDotted, NamingUnderscore:
		return n, nil
	}
	return NamingDefault, ErrUnknownNaming
}

// NameIn is the name a tool is listed under in naming n.
func (c *Catalogue) NameIn(t *Tool, n Naming) string {
	if n == NamingUnderscore || (n == NamingDefault && c.aliases) {
		return AliasOf(t.Name)
	}
	return t.Name
}
