package research

import (
	"slices"

	"github.com/gatehouse/gatehouse/workflows/research/gateengine"
)

// transitionNames lists what a transition tool's schema accepts: every
// move, in the table's order, then the next_action words accepted as
// aliases, sorted, so every replica lists the same schema.
func transitionNames[S gateengine.Status](moves []gateengine.Move[S], aliases map[string]string) []string {
	names := make([]string, 0, len(moves)+len(aliases))
	for _, m := range moves {
		names = append(names, m.Name)
	}
	words := make([]string, 0, len(aliases))
	for a := range aliases {
		words = append(words, a)
	}
	slices.Sort(words)
	return append(names, words...)
}
