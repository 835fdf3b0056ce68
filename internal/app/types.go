package app

import enumspb "go.temporal.io/api/enums/v1"

type enumsIndexed = enumspb.IndexedValueType
