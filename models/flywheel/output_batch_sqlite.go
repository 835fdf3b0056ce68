package flywheel

import "gorm.io/gorm"

// commitSQLite accepts a batch of outputs of distinct rollouts in one
// SQLite transaction, each as AcceptOutput would alone, and answers each
// after the commit. An output refused for its own reason (leaseRefused)
// wrote nothing and gets that refusal; any other error undoes the whole
// batch and is every output's answer, as a failed commit would be.
func commitSQLite(db *gorm.DB, prepared *preparedSQLite, batch []*batchedOutput) {
	answers := make([]batchAnswer, len(batch))
	// Not preparing only costs the parsing: the batch goes on regardless.
	_ = prepared.prepare(db.Statement.Context, db.Statement.ConnPool, outputSQLiteStatements...)
	err := eachInOneSQLiteTx(db, prepared, len(batch), func(tx *gorm.DB, conn gorm.ConnPool, i int) error {
		x := batch[i]
		epoch, same, err := acceptOutputTx(tx, conn, x.h, x.o, x.now)
		answers[i] = batchAnswer{epoch: epoch, accepted: err == nil, err: err, sameBody: same}
		return err
	})
	for i, x := range batch {
		if err != nil {
			answers[i] = batchAnswer{err: err}
		}
		x.done <- answers[i]
	}
}
