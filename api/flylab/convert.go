package flylab

import (
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

func converterGet(p *commonpb.Payloads, v any) error {
	return converter.GetDefaultDataConverter().FromPayloads(p, v)
}
