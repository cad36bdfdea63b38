// Loaded into a product process by a test (`node --import`): on SIGUSR2 the process meets a fault
// nobody handles, the way a bug in a callback would leave one: a rejected promise, or with
// TEST_FAULT=throw an exception thrown from a timer.
process.on('SIGUSR2', () => {
  if (process.env.TEST_FAULT === 'throw')
    setTimeout(() => {
      throw new Error('an exception nobody catches (test)');
    });
  else void Promise.reject(new Error('a rejection nobody handles (test)'));
});
