package flywheel

import "gorm.io/gorm"

// eachInOneSQLiteTx runs write for each of n requests of a batch in one
// SQLite transaction on db, their statements answered by prepared. A
// request refused for its own reason (leaseRefused) wrote nothing and
// keeps its refusal, which write records with its answer; any other
// error undoes the whole batch and is returned, to be every request's
// answer, as a failed commit would be.
func eachInOneSQLiteTx(db *gorm.DB, prepared *preparedSQLite, n int, write func(tx *gorm.DB, conn gorm.ConnPool, i int) error) error {
	return db.Transaction(func(tx *gorm.DB) error {
		conn := prepared.in(tx.Statement.ConnPool)
		for i := range n {
			if err := write(tx, conn, i); err != nil && !leaseRefused(err) {
				return err
			}
		}
		return nil
	})
}
