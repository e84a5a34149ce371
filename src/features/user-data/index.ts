// A user's own data in one document (GET /api/user/export), gathered from the features that keep it.
export { userDataRoutes } from './routes'
export { createUserData, type UserDataService } from './service'
