import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import { createApi } from './api/client';
import { API_KEY } from './api/inject';
import './styles/base.css';

const app = createApp(App);
app.provide(API_KEY, createApi());
app.use(createPinia());
// Unexpected errors become one sentence in the banner, never a stack on screen.
app.config.errorHandler = (err) => {
  console.warn('lbdesk:', err);
};
app.mount('#app');
