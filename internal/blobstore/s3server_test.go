package blobstore

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// s3Server is gofakes3, an independent S3 implementation (path-style
// buckets, objects, S3's XML errors), behind an independent SigV4 check of
// both header-signed requests and presigned (query-signed) URLs, including
// their expiry, which gofakes3 does not verify. It shares no code with the
// store under test.
type s3Server struct {
	bucket, access, secret, region string
	now                            func() time.Time

	backend *s3mem.Backend
	s3      http.Handler
}

func newS3Server(bucket, access, secret string) *s3Server {
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		panic(err)
	}
	fake := gofakes3.New(backend, gofakes3.WithLogger(gofakes3.DiscardLog()))
	return &s3Server{bucket: bucket, access: access, secret: secret, region: "us-east-1", now: time.Now,
		backend: backend, s3: fake.Server()}
}

func (s *s3Server) fail(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(status)
	_, _ = fmt.Fprintf(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>%s</Code><Message>%s</Message></Error>", code, msg) // a client gone mid-answer has no one to tell
}

func (s *s3Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		s.fail(w, 400, "IncompleteBody", err.Error())
		return
	}
	if code, msg := s.authenticate(r, body); code != "" {
		s.fail(w, http.StatusForbidden, code, msg)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.s3.ServeHTTP(w, r)
}

// object reads what gofakes3 holds under key.
func (s *s3Server) object(key string) ([]byte, bool) {
	obj, err := s.backend.GetObject(s.bucket, key, nil)
	if err != nil {
		return nil, false
	}
	defer func() { _ = obj.Contents.Close() }()
	b, err := io.ReadAll(obj.Contents)
	return b, err == nil
}

// authenticate checks a SigV4 signature; it returns an S3 error code or "".
func (s *s3Server) authenticate(r *http.Request, body []byte) (string, string) {
	q := r.URL.Query()
	var cred, signedHeaders, signature, amzDate, payload string
	presigned := q.Get("X-Amz-Algorithm") != ""
	if presigned {
		if q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" {
			return "AuthorizationQueryParametersError", "algorithm"
		}
		cred, signedHeaders, signature, amzDate = q.Get("X-Amz-Credential"), q.Get("X-Amz-SignedHeaders"), q.Get("X-Amz-Signature"), q.Get("X-Amz-Date")
		payload = "UNSIGNED-PAYLOAD"
		exp, err := strconv.Atoi(q.Get("X-Amz-Expires"))
		t, terr := time.Parse("20060102T150405Z", amzDate)
		if err != nil || terr != nil || exp <= 0 || exp > 604800 {
			return "AuthorizationQueryParametersError", "bad X-Amz-Expires or X-Amz-Date"
		}
		if s.now().After(t.Add(time.Duration(exp) * time.Second)) {
			return "AccessDenied", "Request has expired"
		}
	} else {
		auth := r.Header.Get("Authorization")
		rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
		if !ok {
			return "AccessDenied", "unsigned request"
		}
		for _, part := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch k {
			case "Credential":
				cred = v
			case "SignedHeaders":
				signedHeaders = v
			case "Signature":
				signature = v
			}
		}
		amzDate = r.Header.Get("X-Amz-Date")
		payload = r.Header.Get("X-Amz-Content-Sha256")
		t, err := time.Parse("20060102T150405Z", amzDate)
		if err != nil || s.now().Sub(t).Abs() > 15*time.Minute {
			return "RequestTimeTooSkewed", "date"
		}
		if payload != "UNSIGNED-PAYLOAD" {
			sum := sha256.Sum256(body)
			if payload != hex.EncodeToString(sum[:]) {
				return "XAmzContentSHA256Mismatch", "payload hash"
			}
		}
	}
	parts := strings.Split(cred, "/")
	if len(parts) != 5 || parts[0] != s.access || parts[2] != s.region || parts[3] != "s3" || parts[4] != "aws4_request" {
		return "InvalidAccessKeyId", "credential scope"
	}
	scope := strings.Join(parts[1:], "/")
	canonical := strings.Join([]string{r.Method, r.URL.EscapedPath(), canonicalQuery(q), canonicalHeaders(r, signedHeaders), signedHeaders, payload}, "\n")
	sum := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	key := mac([]byte("AWS4"+s.secret), parts[1])
	for _, p := range []string{s.region, "s3", "aws4_request"} {
		key = mac(key, p)
	}
	if !hmac.Equal([]byte(hex.EncodeToString(mac(key, toSign))), []byte(signature)) {
		return "SignatureDoesNotMatch", "signature"
	}
	return "", ""
}

func mac(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func canonicalQuery(q url.Values) string {
	var pairs []string
	for k, vs := range q {
		if k == "X-Amz-Signature" {
			continue
		}
		for _, v := range vs {
			pairs = append(pairs, awsEscape(k)+"="+awsEscape(v))
		}
	}
	sort.Strings(pairs)
	return strings.Join(pairs, "&")
}

func canonicalHeaders(r *http.Request, signed string) string {
	var b strings.Builder
	for _, name := range strings.Split(signed, ";") {
		var v string
		if name == "host" {
			v = r.Host
		} else {
			v = strings.Join(r.Header.Values(name), ",")
		}
		b.WriteString(name + ":" + strings.Join(strings.Fields(v), " ") + "\n")
	}
	return b.String()
}

// awsEscape is RFC 3986 percent-encoding as SigV4 requires.
func awsEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
