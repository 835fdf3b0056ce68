package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// pageNames are the templates/<name>.html files rendered inside the layout.
var pageNames = []string{"signin", "error", "approvals", "reviews", "rollouts", "rollout",
	"sessions", "experiments", "evidence_list", "evidence"}

// pages are the parsed templates, one per page, plus the asset versions.
type pages struct {
	byName  map[string]*template.Template
	partial *template.Template
	assets  map[string]string
}

// view is what every page template receives.
type view struct {
	Title    string
	Nav      string
	Operator string
	CSRF     string
	Notice   string
	Error    string
	// Code names the error of an error page (data-code), when it has one.
	Code string
	Data any
}

func parsePages(funcs template.FuncMap) (*pages, error) {
	p := &pages{byName: map[string]*template.Template{}, assets: map[string]string{}}
	err := fs.WalkDir(staticFS, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		p.assets[strings.TrimPrefix(path, "static/")] = hex.EncodeToString(sum[:6])
		return nil
	})
	if err != nil {
		return nil, err
	}
	funcs["asset"] = func(name string) (string, error) {
		v, ok := p.assets[name]
		if !ok {
			return "", fmt.Errorf("no embedded asset %q", name)
		}
		return "/console/static/" + name + "?v=" + v, nil
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html")
	if err != nil {
		return nil, fmt.Errorf("console templates: %w", err)
	}
	p.partial = base
	for _, name := range pageNames {
		t, err := template.Must(base.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("console template %s: %w", name, err)
		}
		p.byName[name] = t
	}
	return p, nil
}

// funcs are the helpers the templates may call.
func (c *Console) funcs() template.FuncMap {
	return template.FuncMap{
		"workflowURL":     c.workflowURL,
		"workflowListURL": c.workflowListURL,
		"temporalListURL": c.temporalListURL,
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
		"join":       strings.Join,
		"pathEscape": url.PathEscape,
		"deref":      func(b *bool) bool { return b != nil && *b },
		"seeds": func(s []int64) string {
			parts := make([]string, len(s))
			for i, v := range s {
				parts[i] = fmt.Sprint(v)
			}
			return strings.Join(parts, ", ")
		},
		"num": func(f float64) string { return fmt.Sprintf("%.4g", f) },
	}
}

// render writes a full page; rendering into a buffer first means a template
// error answers 500 instead of half a page.
func (c *Console) render(g *gin.Context, status int, name string, v view) {
	var buf bytes.Buffer
	if err := c.pages.byName[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		c.log.Error("console render", "page", name, "err", err)
		g.Data(http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("console page failed to render"))
		return
	}
	g.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// renderPartial writes one named fragment of partials.html.
func (c *Console) renderPartial(g *gin.Context, status int, name string, v view) {
	var buf bytes.Buffer
	if err := c.pages.partial.ExecuteTemplate(&buf, name, v); err != nil {
		c.log.Error("console render", "partial", name, "err", err)
		g.Status(http.StatusInternalServerError)
		return
	}
	g.Data(status, "text/html; charset=utf-8", buf.Bytes())
}

// newView starts a page view for a signed-in operator.
func newView(s *session, title, nav string) view {
	return view{Title: title, Nav: nav, Operator: s.OperatorName, CSRF: s.CSRFToken}
}

// fail answers with an error page; cause, when set, is logged, not shown.
func (c *Console) fail(g *gin.Context, s *session, status int, msg string, cause error) {
	if cause != nil {
		c.log.Error("console", "path", g.Request.URL.Path, "status", status, "err", cause)
	}
	v := view{Title: http.StatusText(status), Error: msg}
	if s != nil {
		v = newView(s, http.StatusText(status), "")
		v.Error = msg
	}
	c.render(g, status, "error", v)
	g.Abort()
}

// failCode is fail for a refused request whose problem has a code.
func (c *Console) failCode(g *gin.Context, s *session, status int, code, msg string) {
	v := view{Title: http.StatusText(status), Error: msg, Code: code}
	if s != nil {
		v = newView(s, http.StatusText(status), "")
		v.Error, v.Code = msg, code
	}
	c.render(g, status, "error", v)
	g.Abort()
}

// static serves the embedded assets; their URLs carry a content version,
// so they may be cached for long.
func (c *Console) static(g *gin.Context) {
	name := strings.TrimPrefix(g.Param("file"), "/")
	if _, ok := c.pages.assets[name]; !ok {
		g.Data(http.StatusNotFound, "text/plain; charset=utf-8", []byte("no such asset"))
		return
	}
	b, _ := staticFS.ReadFile("static/" + name)
	ctype := "text/plain; charset=utf-8"
	switch {
	case strings.HasSuffix(name, ".css"):
		ctype = "text/css; charset=utf-8"
	case strings.HasSuffix(name, ".js"):
		ctype = "text/javascript; charset=utf-8"
	case strings.HasSuffix(name, ".svg"):
		ctype = "image/svg+xml"
	}
	g.Header("Cache-Control", "public, max-age=31536000, immutable")
	g.Data(http.StatusOK, ctype, b)
}
