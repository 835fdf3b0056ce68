package blobstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// S3Options configure an S3-compatible store.
type S3Options struct {
	// Endpoint is the API base URL, e.g. http://127.0.0.1:9000 (empty: AWS).
	Endpoint string
	// Bucket holds every object.
	Bucket string
	// Region signs requests (default us-east-1).
	Region string
	// AccessKeyID and SecretAccessKey sign requests (SigV4). Set both, or
	// neither: then the AWS SDK's default credential chain signs (see
	// s3Credentials), so IRSA, EKS Pod Identity and instance roles work.
	AccessKeyID string
	// SecretAccessKey is the secret matching AccessKeyID.
	SecretAccessKey string
	// VirtualHostedStyle addresses objects as bucket.host/key instead of
	// the default path style host/bucket/key.
	VirtualHostedStyle bool
	// HTTPClient overrides the transport (tests).
	HTTPClient *http.Client
}

// S3 stores objects in one bucket of an S3-compatible service. Requests and
// presigned URLs are SigV4-signed by the AWS SDK; path-style addressing is
// the default so any S3-compatible server works behind a plain endpoint.
type S3 struct {
	bucket  string
	client  *s3.Client
	presign *s3.PresignClient
}

// NewS3 returns a store over opts.Bucket.
func NewS3(opts S3Options) (*S3, error) {
	if opts.Bucket == "" {
		return nil, errors.New("no bucket")
	}
	if opts.Region == "" {
		opts.Region = "us-east-1"
	}
	creds, err := s3Credentials(opts)
	if err != nil {
		return nil, err
	}
	o := s3.Options{
		Region:       opts.Region,
		Credentials:  creds,
		UsePathStyle: !opts.VirtualHostedStyle,
		// Only the checksums S3 requires: extra trailing checksums would be
		// signed into presigned URLs that plain curl cannot satisfy.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	if opts.Endpoint != "" {
		o.BaseEndpoint = aws.String(opts.Endpoint)
	}
	if opts.HTTPClient != nil {
		o.HTTPClient = opts.HTTPClient
	}
	c := s3.New(o)
	return &S3{bucket: opts.Bucket, client: c, presign: s3.NewPresignClient(c)}, nil
}

// checkKey refuses the keys the filesystem store refuses, so both backends
// accept the same keys.
func checkKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.Contains(key, "\\") || strings.ContainsRune(key, 0) {
		return fmt.Errorf("%w: %q", ErrBadKey, key)
	}
	for _, part := range strings.Split(key, "/") {
		if part == "" || part == "." || part == ".." {
			return fmt.Errorf("%w: %q", ErrBadKey, key)
		}
	}
	return nil
}

// Put spools r to a temporary file (hashing it and enforcing maxBytes),
// then uploads the file with a signed payload hash.
func (s *S3) Put(ctx context.Context, key string, r io.Reader, maxBytes int64) (Info, error) {
	if err := checkKey(key); err != nil {
		return Info{}, err
	}
	tmp, err := os.CreateTemp("", "gatehouse-s3-*")
	if err != nil {
		return Info{}, err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // best effort: a leftover temp file is harmless
	defer func() { _ = tmp.Close() }()           // the upload read it back; nothing left to flush
	h := sha256.New()
	src := r
	if maxBytes > 0 {
		src = io.LimitReader(r, maxBytes+1)
	}
	n, err := io.Copy(io.MultiWriter(tmp, h), readerWithContext{ctx, src})
	if err != nil {
		return Info{}, err
	}
	if maxBytes > 0 && n > maxBytes {
		return Info{}, fmt.Errorf("blob larger than %d bytes", maxBytes)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return Info{}, err
	}
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key), Body: tmp,
		ContentLength: aws.Int64(n), ContentType: aws.String("application/octet-stream")})
	if err != nil {
		return Info{}, fmt.Errorf("s3 put %s: %w", key, err)
	}
	return Info{Key: key, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// Open streams the object at key.
func (s *S3) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil {
		if isNotFound(err) {
			return nil, fmt.Errorf("%w: %s", ErrNotFound, key)
		}
		return nil, fmt.Errorf("s3 get %s: %w", key, err)
	}
	return out.Body, nil
}

// Stat hashes the object at key (S3's ETag is not a SHA-256, so the bytes
// are read).
func (s *S3) Stat(ctx context.Context, key string) (Info, error) {
	rc, err := s.Open(ctx, key)
	if err != nil {
		return Info{}, err
	}
	defer func() { _ = rc.Close() }() // read only: a close error loses nothing
	h := sha256.New()
	n, err := io.Copy(h, readerWithContext{ctx, rc})
	if err != nil {
		return Info{}, err
	}
	return Info{Key: key, SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}, nil
}

// Delete removes the object at key; S3 answers success for a missing key.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("s3 delete %s: %w", key, err)
	}
	return nil
}

// PresignPut returns a SigV4 query-signed PUT URL valid for ttl.
func (s *S3) PresignPut(ctx context.Context, key string, ttl time.Duration) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	req, err := s.presign.PresignPutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", err
	}
	return req.URL, nil
}

// PresignGet returns a SigV4 query-signed GET URL valid for ttl.
func (s *S3) PresignGet(ctx context.Context, key string, ttl time.Duration) (string, error) {
	if err := checkKey(key); err != nil {
		return "", err
	}
	req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", err
	}
	return req.URL, nil
}

func isNotFound(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "NoSuchKey" || ae.ErrorCode() == "NotFound") {
		return true
	}
	var re *smithyhttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound
}
