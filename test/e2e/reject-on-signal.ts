// Loaded into a product process by a test (`node --import`): on SIGUSR2 a promise rejects with
// nobody to handle it, the way a bug in a callback would leave one.
process.on('SIGUSR2', () => {
  void Promise.reject(new Error('a rejection nobody handles (test)'));
});
