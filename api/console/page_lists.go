package console

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/gin-gonic/gin"

	consolemodel "github.com/gatehouse/gatehouse/models/console"
)

// The list pages (rollouts, sessions, experiments) share their query
// string: filters of the page, then cursor and size. Every value is user
// input: it is checked here, bound as a query parameter by models/console
// and escaped by html/template.

// maxFilterLen bounds a free-text filter value.
const maxFilterLen = 200

// listError is a list request the console refuses with 400; Code names the
// problem on the error page (data-code) for scripts and tests.
type listError struct {
	Code    string
	Message string
}

func (e *listError) Error() string { return e.Code + ": " + e.Message }

// listRequest reads cursor and size from the query string.
func listRequest(g *gin.Context) (Page, error) {
	size := 0
	if s := g.Query("size"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return Page{}, &listError{Code: "bad_page_size", Message: "The page size must be a number from 1 to " + strconv.Itoa(consolemodel.MaxPageSize) + "."}
		}
		size = n
	}
	p, err := consolemodel.NewPage(g.Query("cursor"), size)
	switch {
	case errors.Is(err, consolemodel.ErrBadPageSize):
		return Page{}, &listError{Code: "bad_page_size", Message: "The page size must be a number from 1 to " + strconv.Itoa(consolemodel.MaxPageSize) + "."}
	case errors.Is(err, consolemodel.ErrBadCursor):
		return Page{}, &listError{Code: "bad_cursor", Message: "The page cursor is not one this console issued; start again from the first page."}
	}
	return p, err
}

// textFilter reads a free-text filter value.
func textFilter(g *gin.Context, name, label string) (string, error) {
	v := g.Query(name)
	if len(v) > maxFilterLen {
		return "", &listError{Code: "bad_filter", Message: "The " + label + " filter is longer than " + strconv.Itoa(maxFilterLen) + " characters."}
	}
	return v, nil
}

// choiceFilter reads a filter that must be one of choices ("" for all).
func choiceFilter(g *gin.Context, name, label string, choices []string) (string, error) {
	v := g.Query(name)
	if v != "" && !slices.Contains(choices, v) {
		return "", &listError{Code: "bad_filter", Message: "The " + label + " filter must be one of the listed values."}
	}
	return v, nil
}

// refuseList answers a refused list request with the 400 error page; any
// other error is the domain failing (503).
func (c *Console) refuseList(g *gin.Context, s *session, what string, err error) {
	var le *listError
	if errors.As(err, &le) {
		c.failCode(g, s, http.StatusBadRequest, le.Code, le.Message)
		return
	}
	if errors.Is(err, ErrBadCursor) {
		c.failCode(g, s, http.StatusBadRequest, "bad_cursor", "The page cursor is not one this console issued; start again from the first page.")
		return
	}
	c.fail(g, s, http.StatusServiceUnavailable, "Could not load the "+what+"; try again shortly.", err)
}

// pager is the navigation under a list: the next page, and the first page
// when this is not it.
type pager struct {
	Next  string
	First string
}

// newPager builds the links of path keeping the filters and page size.
func newPager(g *gin.Context, path string, filters url.Values, next string) pager {
	q := url.Values{}
	for k, v := range filters {
		if len(v) > 0 && v[0] != "" {
			q.Set(k, v[0])
		}
	}
	if s := g.Query("size"); s != "" {
		q.Set("size", s)
	}
	var p pager
	if g.Query("cursor") != "" {
		p.First = path + "?" + q.Encode()
	}
	if next != "" {
		q.Set("cursor", next)
		p.Next = path + "?" + q.Encode()
	}
	return p
}
