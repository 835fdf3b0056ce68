package blobstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// ErrPartialS3Keys is returned when only one of the access key id and the
// secret access key is set: a half-configured key pair is a mistake, never
// a request to fall back to the default credential chain.
var ErrPartialS3Keys = errors.New("set both the S3 access key id and secret access key, or neither")

// s3Credentials returns what signs the store's requests. Static keys, when
// given, are used as they are; without them the AWS SDK's default chain
// resolves credentials at request time (environment, shared files, web
// identity for IRSA and workload identity federation, EKS Pod Identity and
// ECS container credentials, the EC2 instance role), cached and refreshed
// before they expire.
func s3Credentials(opts S3Options) (aws.CredentialsProvider, error) {
	switch {
	case opts.AccessKeyID != "" && opts.SecretAccessKey != "":
		return credentials.NewStaticCredentialsProvider(opts.AccessKeyID, opts.SecretAccessKey, ""), nil
	case opts.AccessKeyID != "" || opts.SecretAccessKey != "":
		return nil, ErrPartialS3Keys
	}
	// Loading reads only the environment and the shared config files; no
	// credential is fetched until the first request, so no caller context
	// is needed here.
	cfg, err := awsconfig.LoadDefaultConfig(context.Background(), awsconfig.WithRegion(opts.Region))
	if err != nil {
		return nil, fmt.Errorf("aws default credential chain: %w", err)
	}
	return cfg.Credentials, nil
}
